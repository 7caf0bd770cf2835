package harness

import "time"

// monoBase anchors now: a time read once, with its monotonic reading.
var monoBase = time.Now()

// now is time.Now for half the price: time.Now reads the wall and the
// monotonic clocks, now only the monotonic one and adds what elapsed to
// monoBase. Every duration and ordering the engine computes uses the
// monotonic reading, so its results are the same; the wall-clock part
// misses only steps made to the system clock while the process runs.
func now() time.Time { return monoBase.Add(time.Since(monoBase)) }

// selfTimed is a Client that fills its samples' enter and exit (the times
// the request entered and left the generator, for Little's Law) from the
// clock reads it makes for Start and End anyway, sparing the engine two
// clock reads per request.
type selfTimed interface {
	timesItsSamples() bool
}

// selfTimedClient reports whether c fills enter and exit itself.
func selfTimedClient(c Client) bool {
	st, ok := c.(selfTimed)
	return ok && st.timesItsSamples()
}
