package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"

	"flitsim/configs"
	"flitsim/fabric"
)

// slurmRunning is one running job as squeue lists it.
type slurmRunning struct {
	ID, Name, NodeList string
	Hosts              []string
}

// squeueFormat is what from-slurm asks squeue for: job id, name, node list.
const squeueFormat = "%i|%j|%N"

func jobsFromSlurm(args []string, stdout, stderr io.Writer) error {
	fs := newFlags("jobs from-slurm", "jobs from-slurm [--map FILE] [--fabric SPEC|FILE] [--partition P] [--squeue FILE] [-o FILE]",
		"Writes the running jobs of a Slurm cluster as a jobs file (docs/jobs/): it reads them from\n"+
			"squeue ("+`squeue -h -t RUNNING -o '`+squeueFormat+`'`+"), expands each job's host list with\n"+
			"`scontrol show hostnames`, and names each host's fabric node: through --map (lines \"HOST NODE\",\n"+
			"NODE a node description, 0x GUID or lid:N), else by the host name itself. With --fabric every node\n"+
			"is checked against the fabric, where a host also matches an HCA whose description is the host\n"+
			"name followed by a space (ibnetdiscover's \"node01 mlx5_0\"). --squeue reads recorded squeue output\n"+
			"in that format instead of running squeue.", stderr)
	mapFile := fs.String("map", "", "host-to-node map: lines \"HOST NODE\" (# comments)")
	fabricSpec := fs.String("fabric", "", "fabric (topology spec or file) to check and resolve the nodes against")
	partition := fs.String("partition", "", "only jobs of this partition (squeue -p)")
	recorded := fs.String("squeue", "", "read squeue output (format "+squeueFormat+") from this file instead of running squeue")
	out := fs.String("o", "", "write the jobs file here (default: standard output)")
	pos, err := parseFlags(fs, args)
	if err != nil {
		return err
	}
	if len(pos) > 0 {
		return badInput("unexpected argument %q", pos[0])
	}
	if strings.ContainsAny(*partition, " \t\n;|&$`'\"") {
		return badInput("--partition %q: not a partition name", *partition)
	}
	hostMap := map[string]string{}
	if *mapFile != "" {
		if hostMap, err = readHostMap(*mapFile); err != nil {
			return err
		}
	}
	var net *fabric.Network
	if *fabricSpec != "" {
		if net, err = loadNetwork(*fabricSpec); err != nil {
			return err
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var listing []byte
	if *recorded != "" {
		if listing, err = os.ReadFile(*recorded); err != nil {
			return badInput("--squeue: %v", err)
		}
	} else {
		a := []string{"-h", "-t", "RUNNING", "-o", squeueFormat}
		if *partition != "" {
			a = append(a, "-p", *partition)
		}
		if listing, err = runTool(ctx, "squeue", a...); err != nil {
			return err
		}
	}
	jobs, err := parseSqueue(listing, *recorded)
	if err != nil {
		return err
	}
	for i := range jobs {
		h, err := runTool(ctx, "scontrol", "show", "hostnames", jobs[i].NodeList)
		if err != nil {
			return err
		}
		jobs[i].Hosts = strings.Fields(string(h))
	}
	text, err := slurmJobsFile(jobs, hostMap, net)
	if err != nil {
		return err
	}
	// The result must read back as a jobs file.
	if _, err := configs.ParseWorkload([]byte(text), "from-slurm"); err != nil && len(jobs) > 0 {
		return fmt.Errorf("internal: the jobs file written does not read back: %w", err)
	}
	if *out == "" {
		_, err = io.WriteString(stdout, text)
		return err
	}
	if err := os.WriteFile(*out, []byte(text), 0o644); err != nil {
		return badInput("-o: %v", err)
	}
	fmt.Fprintf(stderr, "%d running jobs written to %s\n", len(jobs), *out)
	return nil
}

// runTool runs a Slurm client and returns its standard output.
func runTool(ctx context.Context, name string, args ...string) ([]byte, error) {
	var o, e bytes.Buffer
	c := exec.CommandContext(ctx, name, args...)
	c.Stdout, c.Stderr = &o, &e
	if err := c.Run(); err != nil {
		return nil, fmt.Errorf("%s %s: %v: %s", name, strings.Join(args, " "), err, strings.TrimSpace(e.String()))
	}
	return o.Bytes(), nil
}

// parseSqueue reads "id|name|nodelist" lines; file names the source in
// errors ("" for squeue itself).
func parseSqueue(data []byte, file string) ([]slurmRunning, error) {
	src := "squeue output"
	if file != "" {
		src = file
	}
	var jobs []slurmRunning
	sc := bufio.NewScanner(bytes.NewReader(data))
	for n := 1; sc.Scan(); n++ {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.SplitN(line, "|", 3)
		if len(f) != 3 || f[0] == "" || f[2] == "" {
			return nil, badInput("%s:%d: %q: want JOBID|NAME|NODELIST (squeue -o '%s')", src, n, line, squeueFormat)
		}
		if !configs.PlainWord(f[0]) {
			return nil, badInput("%s:%d: job id %q is not a plain word", src, n, f[0])
		}
		if strings.ContainsAny(f[2], " \t;|&$`'\"") {
			return nil, badInput("%s:%d: node list %q", src, n, f[2])
		}
		jobs = append(jobs, slurmRunning{ID: f[0], Name: f[1], NodeList: f[2]})
	}
	return jobs, sc.Err()
}

// readHostMap reads "HOST NODE" lines.
func readHostMap(path string) (map[string]string, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, badInput("--map: %v", err)
	}
	m := map[string]string{}
	for n, line := range strings.Split(string(data), "\n") {
		line = strings.TrimSpace(line)
		if i := strings.IndexByte(line, '#'); i >= 0 {
			line = strings.TrimSpace(line[:i])
		}
		if line == "" {
			continue
		}
		host, node, ok := strings.Cut(line, " ")
		node = strings.TrimSpace(node)
		if !ok || node == "" {
			return nil, badInput("%s:%d: %q: want HOST NODE", path, n+1, line)
		}
		if _, dup := m[host]; dup {
			return nil, badInput("%s:%d: host %q mapped twice", path, n+1, host)
		}
		m[host] = node
	}
	return m, nil
}

// slurmJobsFile writes the jobs as a jobs file, each host named by the map
// or by itself, and, with a fabric, resolved to an HCA of it.
func slurmJobsFile(jobs []slurmRunning, hostMap map[string]string, net *fabric.Network) (string, error) {
	var refs *fabric.Resolver
	if net != nil {
		refs = fabric.NewResolver(net)
	}
	var b strings.Builder
	b.WriteString("# Running Slurm jobs, written by flitsim jobs from-slurm (squeue, scontrol show hostnames).\n")
	if len(jobs) == 0 {
		b.WriteString("# No job was running.\n")
	}
	for _, j := range jobs {
		fmt.Fprintf(&b, "\n# %s: %s on %s\n[[job]]\nid = %s\nnodes = [", j.ID, strings.ReplaceAll(j.Name, "\n", " "), j.NodeList, strconv.Quote("slurm-"+j.ID))
		for i, h := range j.Hosts {
			node := h
			if m, ok := hostMap[h]; ok {
				node = m
			}
			if net != nil {
				r, err := fabricNode(net, refs, node)
				if err != nil {
					return "", fmt.Errorf("job %s, host %s: %w", j.ID, h, err)
				}
				node = r
			}
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(node))
		}
		b.WriteString("]\n")
	}
	return b.String(), nil
}

// fabricNode resolves a host's node reference against the fabric
// (fabric.Resolver.Host): a GUID or LID as given, a name exactly or as the
// first word of an HCA's description.
func fabricNode(net *fabric.Network, refs *fabric.Resolver, ref string) (string, error) {
	h, err := refs.Host(ref)
	if err != nil {
		return "", fmt.Errorf("%w (give a --map)", err)
	}
	if strings.HasPrefix(ref, "0x") || strings.HasPrefix(ref, "lid:") {
		return ref, nil
	}
	return net.Nodes[net.NumSwitches+h].Name, nil
}
