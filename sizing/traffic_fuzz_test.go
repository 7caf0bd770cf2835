package sizing

import (
	"bytes"
	"math"
	"os"
	"testing"
)

// FuzzReadTraffic: any input is a curve or an error, never a panic; a
// curve is sorted, finite, non-negative, at least two points with a step,
// and plans without panicking, its schedule covering the curve.
func FuzzReadTraffic(f *testing.F) {
	for _, name := range []string{"day.csv", "prom.json"} {
		b, err := os.ReadFile("testdata/" + name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte("0,1\n60,2\n"))
	f.Add([]byte(`{"status":"success","data":{"resultType":"matrix","result":[{"values":[[1,"1"],[2,"3"]]}]}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := ReadTraffic("f", bytes.NewReader(b), nil)
		if err != nil {
			return
		}
		if len(c.Points) < 2 || c.Step <= 0 {
			t.Fatalf("curve of %d points, step %v", len(c.Points), c.Step)
		}
		for i, p := range c.Points {
			if !(p.QPS >= 0) || math.IsInf(p.QPS, 0) || (i > 0 && !p.At.After(c.Points[i-1].At)) {
				t.Fatalf("point %d: %+v", i, p)
			}
		}
		if len(c.Points) > 2000 || c.Span() > 400*24*3600e9 {
			return // keep each input fast
		}
		s, err := Plan(knee(100), Input{Headroom: 1, Traffic: c})
		if err != nil {
			t.Fatalf("Plan: %v", err)
		}
		if st := s.Schedule; len(st) == 0 || !st[0].From.Equal(c.Points[0].At) || !st[len(st)-1].To.Equal(c.end(len(c.Points)-1)) {
			t.Fatalf("schedule %v does not cover the curve", st)
		}
	})
}
