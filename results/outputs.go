package results

import (
	"bytes"
	"io"
	"os"
	"path/filepath"
)

// The files of a results directory, beside the records (ResultsFile) and
// their wall times: the tables, the plots (Plot) and the report
// (ReportFile).
const (
	TableFile  = "table.md"
	TableCSV   = "table.csv"
	LevelsCSV  = "levels.csv"
	ReportJSON = "report.json"
	JobsCSV    = "jobs.csv"
)

// WriteDir writes everything a results directory holds beside its
// records, from them, summarised once: the tables (Markdown, CSV, JSON),
// the per-level means, the per-job table when there are jobs, the plots
// and the report; info.Walls is read from the directory. It returns the
// Markdown table.
func WriteDir(dir string, info ReportInfo) ([]byte, error) {
	recs, err := ReadDir(dir)
	if err != nil {
		return nil, err
	}
	rep := Summarize(recs)
	var md bytes.Buffer
	for _, f := range []struct {
		name string
		fn   func(io.Writer) error
	}{
		{TableFile, func(w io.Writer) error { return WriteTable(io.MultiWriter(w, &md), rep, "md") }},
		{TableCSV, func(w io.Writer) error { return WriteTable(w, rep, "csv") }},
		{LevelsCSV, func(w io.Writer) error { return WriteLevelsCSV(w, rep) }},
		{ReportJSON, func(w io.Writer) error { return WriteTable(w, rep, "json") }},
		{JobsCSV, func(w io.Writer) error { return WriteJobsCSV(w, rep) }},
	} {
		if f.name == JobsCSV && len(rep.Jobs) == 0 {
			continue
		}
		var b bytes.Buffer
		if err := f.fn(&b); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), b.Bytes(), 0o644); err != nil {
			return nil, err
		}
	}
	if _, err := Plot(dir, recs); err != nil {
		return nil, err
	}
	if info.Walls, err = ReadWalls(dir); err != nil {
		return nil, err
	}
	if err := writeReportFile(dir, info, recs, rep); err != nil {
		return nil, err
	}
	return md.Bytes(), nil
}
