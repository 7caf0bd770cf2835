package compare

import "fmt"

// MinTrials is the fewest trials per side with which a scenario's gated
// latency tests can reject at all at the given confidence: the smallest
// two-sided Mann-Whitney p-value with n vs n untied trials is
// 2/C(2n, n), and with Holm's correction over tests gated tests the first
// must fall below (1 − confidence)/tests. With 3 trials a side the
// smallest p-value is 0.1, so at 95% confidence no regression can ever be
// called: 4 is the minimum for one test, 5 for three (streaming).
func MinTrials(confidence float64, tests int) int {
	return trialsNeeded((1 - confidence) / float64(max(tests, 1)))
}

// Underpowered is an error for a configuration whose scenario, with
// trials per side (or, for a sweep, knee estimates), can never reach the
// confidence, naming the setting and the least value that can; nil when
// it can. tests is the number of gated latency tests (1; 3 for
// streaming). It is an error for bad input, so it says which field to set.
func Underpowered(sweep bool, trials, estimates int, confidence float64, tests int) error {
	if sweep {
		if estimates < MinKneeEstimates {
			return fmt.Errorf("%d knee estimate(s) cannot test max QPS: set load.estimates to at least %d", estimates, MinKneeEstimates)
		}
		return nil
	}
	if need := MinTrials(confidence, tests); trials < need {
		return fmt.Errorf("%d trials can never reach %.3g%% confidence (the smallest possible p-value with %d vs %d trials is %.2g, over %d gated test(s)): set load.trials to at least %d",
			trials, 100*confidence, trials, trials, minPValue(trials, trials), tests, need)
	}
	return nil
}
