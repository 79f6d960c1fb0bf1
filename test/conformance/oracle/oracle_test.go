//go:debug randseednop=0

package oracle

// The oracle runs as a test binary because testing/synctest needs a *testing.T.
//
//	oracle [-test.* flags] SCENARIO.json   → notification log on stdout
//
// GOMAXPROCS=1 is set so that scheduling (and so the order of the seeded
// random numbers client-go draws for jitter) is as reproducible as possible.
//
// Exit codes: 0 ran without divergence, 1 divergence, 2 bad input, 3 internal error;
// 4 when ORACLE_ONLY_MEANT_FOR_PROFILE=1 and the scenario's "profiles" excludes this one.
// ORACLE_VERBOSITY=N (N>0) sends client-go's klog output at -v=N to stderr.
// Without a scenario argument the binary runs the package's own unit tests.

import (
	"flag"
	"fmt"
	"math/rand"
	"os"
	"path/filepath"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"testing"
	"testing/synctest"
	"time"
)

var (
	oracleScenario *Scenario
	oracleResult   Result
	oracleRan      bool
)

func fail(code int, format string, args ...any) {
	fmt.Fprintf(os.Stderr, "oracle: "+format+"\n", args...)
	os.Exit(code)
}

func TestMain(m *testing.M) {
	flag.Parse()
	runtime.GOMAXPROCS(1)
	if flag.NArg() == 0 {
		os.Exit(m.Run())
	}
	if dir := os.Getenv("ORACLE_BATCH_OUT"); dir != "" {
		batchMain(m, dir, flag.Args())
	}
	if flag.NArg() != 1 {
		fail(2, "usage: oracle SCENARIO.json (or ORACLE_BATCH_OUT=DIR oracle SCENARIO.json...)")
	}
	sc, err := LoadScenario(flag.Arg(0))
	if err != nil {
		fail(2, "%v", err)
	}
	if os.Getenv("ORACLE_ONLY_MEANT_FOR_PROFILE") == "1" && !sc.MeantFor(Profile) {
		os.Exit(4)
	}
	names := ApplyGates(sc)
	v, _ := strconv.Atoi(os.Getenv("ORACLE_VERBOSITY"))
	configureKlog(v)
	if os.Getenv("ORACLE_SEED") != "random" {
		rand.Seed(1) // deterministic jitter and watch timeouts (needs randseednop=0)
	}
	if n, _ := strconv.Atoi(os.Getenv("ORACLE_PRINT_RAND")); n > 0 {
		// The stream client-go draws from (rand.Float64 after rand.Seed(1)); the engine's
		// conformance replay is driven by the same values (docs/notification-log-v2.md).
		rand.Seed(1)
		fmt.Print("[")
		for i := 0; i < n; i++ {
			if i > 0 {
				fmt.Print(",")
			}
			fmt.Print(strconv.FormatFloat(rand.Float64(), 'g', -1, 64))
		}
		fmt.Println("]")
		os.Exit(0)
	}
	oracleScenario = sc
	if v > 0 {
		printGates(names)
	}

	// Wall-clock safety net: a goroutine blocked on something synctest cannot see
	// would stop virtual time and hang the run.
	wall := 120 * time.Second
	if s := os.Getenv("ORACLE_WALL_TIMEOUT_S"); s != "" {
		if n, err := strconv.Atoi(s); err == nil && n > 0 {
			wall = time.Duration(n) * time.Second
		}
	}
	time.AfterFunc(wall, func() {
		fail(3, "internal error: the run made no progress for %v of wall-clock time (something blocks outside the synctest bubble)", wall)
	})

	// Keep the testing framework's own output off stdout.
	realStdout := os.Stdout
	devnull, _ := os.Open(os.DevNull)
	os.Stdout = devnull
	if err := flag.Set("test.run", "^TestOracle$"); err != nil {
		fail(3, "%v", err)
	}
	code := m.Run()
	os.Stdout = realStdout
	// Every distinct log client-go produced, in byte order (each ends with its "end" line).
	variants := make([]string, 0, len(oracleVariants))
	for v := range oracleVariants {
		variants = append(variants, v)
	}
	sort.Strings(variants)
	for _, v := range variants {
		if _, err := os.Stdout.WriteString(v); err != nil {
			fail(3, "writing the log: %v", err)
		}
	}
	switch {
	case code != 0 || !oracleRan:
		fail(3, "internal error: the run failed (test exit code %d)", code)
	case oracleResult.Err != nil:
		fail(3, "internal error: %v", oracleResult.Err)
	case oracleResult.Diverged:
		os.Exit(1)
	}
	os.Exit(0)
}

// oracleVariants: the distinct logs of all runs of the scenario (ORACLE_RUNS).
var oracleVariants = map[string]bool{}

// runPlan reads ORACLE_RUNS: a number of runs (default 1), or "auto": at least 20 runs, then
// more until 100 runs in a row brought no new log, at most 1000 (docs/notification-log-v2.md,
// "Nondeterminism").
func runPlan() (min, quiet, max int) {
	v := os.Getenv("ORACLE_RUNS")
	if v == "auto" {
		return 20, 100, 1000
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		n = 1
	}
	return n, 0, n
}

func TestOracle(t *testing.T) {
	if oracleBatch != nil {
		for _, b := range oracleBatch {
			b.variants, b.result = runScenario(t, b.sc)
		}
		oracleRan = true
		return
	}
	if oracleScenario == nil {
		t.Skip("no scenario given")
	}
	oracleVariants, oracleResult = runScenario(t, oracleScenario)
	oracleRan = true
}

// runScenario runs one scenario as often as runPlan says and returns its distinct logs.
func runScenario(t *testing.T, sc *Scenario) (variants map[string]bool, result Result) {
	variants = map[string]bool{}
	defer func() {
		if p := recover(); p != nil {
			result = Result{Err: fmt.Errorf("panic: %v", p)}
		}
	}()
	min, quiet, max := runPlan()
	sinceNew := 0
	for i := 0; i < max; i++ {
		if i >= min && sinceNew >= quiet {
			break
		}
		if os.Getenv("ORACLE_SEED") != "random" {
			rand.Seed(1) // every run draws the same jitter and timeouts
		}
		log := NewLog()
		var res Result
		synctest.Test(t, func(t *testing.T) {
			res = Run(sc, log)
		})
		if res.Err != nil {
			return variants, res
		}
		if res.Diverged {
			result.Diverged = true
		}
		var b strings.Builder
		if err := log.Flush(&b); err != nil {
			return variants, Result{Err: err}
		}
		if variants[b.String()] {
			sinceNew++
		} else {
			variants[b.String()] = true
			sinceNew = 0
		}
	}
	return variants, result
}

type batchItem struct {
	path     string
	sc       *Scenario
	variants map[string]bool
	result   Result
}

var oracleBatch []*batchItem

// batchMain runs many scenarios in one process (the scenario generator's batches): for each
// SCENARIO.json it writes DIR/<name>.ndjson (every distinct log) and DIR/<name>.rc (the exit code
// a single run would have had: 0, 1, 3, or 4 when not meant for this profile). Feature gates are
// read once per process by client-go, so every scenario of a batch must have the same gates.
func batchMain(m *testing.M, dir string, paths []string) {
	var gates map[string]bool
	for i, p := range paths {
		sc, err := LoadScenario(p)
		if err != nil {
			fail(2, "%v", err)
		}
		if i == 0 {
			gates = sc.Gates
		} else if !sameGates(gates, sc.Gates) {
			fail(2, "%s: a batch needs the same gates in every scenario", p)
		}
		oracleBatch = append(oracleBatch, &batchItem{path: p, sc: sc})
	}
	if len(oracleBatch) > 0 {
		ApplyGates(oracleBatch[0].sc)
	}
	v, _ := strconv.Atoi(os.Getenv("ORACLE_VERBOSITY"))
	configureKlog(v)
	devnull, _ := os.Open(os.DevNull)
	realStdout := os.Stdout
	os.Stdout = devnull
	if err := flag.Set("test.run", "^TestOracle$"); err != nil {
		fail(3, "%v", err)
	}
	code := m.Run()
	os.Stdout = realStdout
	if code != 0 || !oracleRan {
		fail(3, "internal error: the batch failed (test exit code %d)", code)
	}
	for _, b := range oracleBatch {
		base := strings.TrimSuffix(filepath.Base(b.path), ".json")
		rc := 0
		switch {
		case os.Getenv("ORACLE_ONLY_MEANT_FOR_PROFILE") == "1" && !b.sc.MeantFor(Profile):
			rc = 4
		case b.result.Err != nil:
			rc = 3
			fmt.Fprintf(os.Stderr, "oracle: %s: internal error: %v\n", base, b.result.Err)
		case b.result.Diverged:
			rc = 1
		}
		variants := make([]string, 0, len(b.variants))
		for v := range b.variants {
			variants = append(variants, v)
		}
		sort.Strings(variants)
		if err := os.WriteFile(filepath.Join(dir, base+".ndjson"), []byte(strings.Join(variants, "")), 0o644); err != nil {
			fail(3, "%v", err)
		}
		if err := os.WriteFile(filepath.Join(dir, base+".rc"), []byte(strconv.Itoa(rc)+"\n"), 0o644); err != nil {
			fail(3, "%v", err)
		}
	}
	os.Exit(0)
}

func sameGates(a, b map[string]bool) bool {
	if len(a) != len(b) {
		return false
	}
	for k, v := range a {
		if bv, ok := b[k]; !ok || bv != v {
			return false
		}
	}
	return true
}
