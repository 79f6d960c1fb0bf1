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
	if flag.NArg() != 1 {
		fail(2, "usage: oracle SCENARIO.json")
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

// runPlan reads ORACLE_RUNS: a number of runs (default 1), or "auto": at least 10 runs, then
// more until 30 runs in a row brought no new log, at most 400 (docs/notification-log-v2.md,
// "Nondeterminism").
func runPlan() (min, quiet, max int) {
	v := os.Getenv("ORACLE_RUNS")
	if v == "auto" {
		return 10, 30, 400
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 {
		n = 1
	}
	return n, 0, n
}

func TestOracle(t *testing.T) {
	if oracleScenario == nil {
		t.Skip("no scenario given")
	}
	defer func() {
		if p := recover(); p != nil {
			oracleResult = Result{Err: fmt.Errorf("panic: %v", p)}
			oracleRan = true
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
			res = Run(oracleScenario, log)
		})
		if res.Err != nil {
			oracleResult = res
			break
		}
		if res.Diverged {
			oracleResult.Diverged = true
		}
		var b strings.Builder
		if err := log.Flush(&b); err != nil {
			oracleResult = Result{Err: err}
			break
		}
		if oracleVariants[b.String()] {
			sinceNew++
		} else {
			oracleVariants[b.String()] = true
			sinceNew = 0
		}
	}
	oracleRan = true
}
