package results

import (
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// Report is everything the tables show.
type Report struct {
	Regressions []Regression `json:"regressions"`
	Usability   Usability    `json:"usability"`
	Levels      []Level      `json:"levels"`
	// Jobs are the per-job rows of workloads (traffic kind "jobs").
	Jobs       []JobLevel        `json:"jobs,omitempty"`
	JobRouting []JobRoutingLevel `json:"job_routing,omitempty"`
	// Timed are the runs through a reroute ([faults.timed]).
	Timed []TimedLevel `json:"timed,omitempty"`
	// Modes compare the routings per job in seeds/004's form.
	Modes []ModeRow `json:"routings_per_job,omitempty"`
}

// Summarize aggregates records into a report.
func Summarize(recs []Record) Report {
	return Report{Regressions: Regressions(recs), Usability: UsabilityMatrix(recs), Levels: Levels(recs), Jobs: JobLevels(recs),
		JobRouting: JobRoutingLevels(recs), Timed: TimedLevels(recs), Modes: ModeRows(recs)}
}

// WriteTable prints the report as md (Markdown), csv (the regression rows)
// or json.
func WriteTable(w io.Writer, rep Report, format string) error {
	switch format {
	case "md", "markdown", "":
		return writeMarkdown(w, rep)
	case "csv":
		return writeRegressionCSV(w, rep)
	case "json":
		enc := json.NewEncoder(w)
		enc.SetIndent("", "  ")
		return enc.Encode(rep)
	}
	return fmt.Errorf("unknown table format %q (md, csv, json)", format)
}

func f2(x float64) string { return strconv.FormatFloat(x, 'f', 2, 64) }

func writeMarkdown(w io.Writer, rep Report) error {
	var b strings.Builder
	b.WriteString("## Throughput degradation\n\n")
	b.WriteString("Linear regression of throughput [GB/s] on the number of failed components, per topology, routing, traffic and failures\n")
	b.WriteString("(seeds/001 Tables 4.4-4.6). Runs that failed to route or deadlocked are left out and counted. Not converged counts runs\n")
	b.WriteString("that hit the time limit: infinite traffic enters with its mean bandwidth up to the limit, an unfinished exchange is left out.\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Intercept | Slope | R² | Points | Routing failed | Deadlock | Not converged |\n")
	b.WriteString("|---|---|---|---|---:|---:|---:|---:|---:|---:|---:|\n")
	for _, r := range rep.Regressions {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %s | %s | %s | %d | %d | %d | %d |\n", r.Topology, r.Routing, r.Traffic, r.Faults,
			f2(r.Intercept), f2(r.Slope), f2(r.R2), r.Points, r.RoutingFailed, r.Deadlocked, r.NotConverged)
	}
	u := rep.Usability
	b.WriteString("\n## Usability\n\no = routed deadlock-free (acyclic CDG, no deadlock); c = cyclic CDG, no deadlock in the time simulated;\n")
	b.WriteString("d = deadlock detected; r = routing failed (Table 4.3, whose o did not tell c apart)\n\n| Topology |")
	for _, r := range u.Routings {
		b.WriteString(" " + r + " |")
	}
	b.WriteString("\n|---|" + strings.Repeat(":---:|", len(u.Routings)) + "\n")
	for _, t := range u.Topologies {
		b.WriteString("| " + t + " |")
		for _, c := range u.Cells[t] {
			b.WriteString(" " + c + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\n## Throughput per failure level\n\nMean over seeds with the 95 % confidence interval (Student's t).\n\n")
	b.WriteString("| Topology | Routing | Traffic | Failures | Failed [%] | Mean failed | Mean [GB/s] | 95 % CI | n |\n|---|---|---|---|---:|---:|---:|---|---:|\n")
	for _, l := range rep.Levels {
		fmt.Fprintf(&b, "| %s | %s | %s | %s | %g | %.1f | %s | %s – %s | %d |\n", l.Topology, l.Routing, l.Traffic, l.Faults, l.Percent, l.Failed,
			f2(l.Mean), f2(l.CILow), f2(l.CIHigh), l.N)
	}
	writeJobsMarkdown(&b, rep.Jobs, rep.JobRouting)
	writeTimedMarkdown(&b, rep.Timed)
	writeModesMarkdown(&b, rep.Modes)
	_, err := io.WriteString(w, b.String())
	return err
}

func writeRegressionCSV(w io.Writer, rep Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"topology", "routing", "traffic", "faults", "intercept_gbs", "slope_gbs_per_failure", "r2", "points", "routing_failed", "deadlocked", "not_converged"})
	for _, r := range rep.Regressions {
		cw.Write([]string{r.Topology, r.Routing, r.Traffic, r.Faults, strconv.FormatFloat(r.Intercept, 'f', 4, 64),
			strconv.FormatFloat(r.Slope, 'f', 4, 64), strconv.FormatFloat(r.R2, 'f', 4, 64), strconv.Itoa(r.Points),
			strconv.Itoa(r.RoutingFailed), strconv.Itoa(r.Deadlocked), strconv.Itoa(r.NotConverged)})
	}
	cw.Flush()
	return cw.Error()
}

// WriteLevelsCSV writes the per-level means.
func WriteLevelsCSV(w io.Writer, rep Report) error {
	cw := csv.NewWriter(w)
	cw.Write([]string{"topology", "routing", "traffic", "faults", "fault_percent", "mean_failed", "mean_gbs", "ci95_low_gbs", "ci95_high_gbs", "n"})
	for _, l := range rep.Levels {
		cw.Write([]string{l.Topology, l.Routing, l.Traffic, l.Faults, strconv.FormatFloat(l.Percent, 'g', -1, 64),
			strconv.FormatFloat(l.Failed, 'f', 2, 64), strconv.FormatFloat(l.Mean, 'f', 4, 64),
			strconv.FormatFloat(l.CILow, 'f', 4, 64), strconv.FormatFloat(l.CIHigh, 'f', 4, 64), strconv.Itoa(l.N)})
	}
	cw.Flush()
	return cw.Error()
}
