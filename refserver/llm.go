package refserver

import (
	"context"
	"hash/fnv"
	"strings"
	"time"
)

// llmToken is one event of a sequence: a token, or its end.
type llmToken struct {
	text   string
	finish string // "length" on the last token, "" before
	err    error  // set, with no text, when the sequence was aborted
}

// llmSeq is one generation request in the scheduler.
type llmSeq struct {
	ctx     context.Context
	prompt  int    // prompt tokens
	max     int    // tokens to generate
	seed    uint64 // with the prompt's hash, picks every token
	vocab   []string
	arrived time.Time

	admitted bool // prefilled, or being prefilled in this step
	gen      int
	first    time.Time
	events   chan llmToken // buffered for every event: the scheduler never blocks

	tiny tinySeq  // the real engine's state
	last llmToken // the real engine's event of this step
}

// generated records s's token just generated at now (s.gen counts it):
// the time to first token on its first, the end-to-end latency and time
// per output token on its last. It reports whether that was s's last.
func (m *vllmMetrics) generated(s *llmSeq, now time.Time) (last bool) {
	if s.gen == 1 {
		s.first = now
		m.ttft.Observe(now.Sub(s.arrived).Seconds())
	}
	if s.gen < s.max {
		return false
	}
	m.e2e.Observe(now.Sub(s.arrived).Seconds())
	if s.gen > 1 {
		m.tpot.Observe(now.Sub(s.first).Seconds() / float64(s.gen-1))
	}
	m.success.WithLabelValues("length").Inc()
	return true
}

// llmEngine is sim-llm: a vLLM-style continuous-batching scheduler over a
// declared cost model. Each iteration (a step) admits waiting sequences up to
// LLMMaxSeqs, then spends
//
//	step = LLMStep + LLMStepPerSeq × running + LLMPrefillPerToken × Σ new prompt tokens
//
// (× Int8Factor in int8) and gives every running sequence one token: the
// newly admitted get their first, so time to first token is queueing plus
// a step that carries their prefill. Sequences join and leave between
// steps, never waiting for a whole batch to finish. Tokens are words drawn
// deterministically from the seed and the prompt.
//
// It is a scheduler (scheduler.go) with one loop.
type llmEngine struct {
	o     Options
	vocab []string
	m     *vllmMetrics
	sched *scheduler[*llmSeq]
}

func newLLMEngine(o Options, m *vllmMetrics) *llmEngine {
	e := &llmEngine{o: o, vocab: strings.Fields(vocabText), m: m, sched: newScheduler(o.Queue, failSeq)}
	e.sched.start(1, e.loop)
	return e
}

// failSeq answers seq with ErrClosed.
func failSeq(seq *llmSeq) { seq.events <- llmToken{err: ErrClosed} }

// submit queues seq or returns ErrQueueFull or ErrClosed at once.
func (e *llmEngine) submit(seq *llmSeq) error {
	err := e.sched.submit(seq, func(seq *llmSeq) {
		seq.arrived = time.Now()
		seq.vocab = e.vocab
		seq.events = make(chan llmToken, seq.max+1)
	})
	if err == nil {
		e.m.waiting.Set(float64(e.sched.pending()))
	}
	return err
}

func (e *llmEngine) close() { e.sched.close() }

// stepCost is the declared time of one step.
func (e *llmEngine) stepCost(running, newPromptTokens int) time.Duration {
	d := e.o.LLMStep + time.Duration(running)*e.o.LLMStepPerSeq + time.Duration(newPromptTokens)*e.o.LLMPrefillPerToken
	return time.Duration(float64(d) * e.o.precisionFactor())
}

func (e *llmEngine) loop() {
	var running []*llmSeq
	var emit []llmToken // this step's token for each running sequence
	timer := stoppedTimer()
	defer func() {
		timer.Stop()
		for _, s := range running {
			failSeq(s)
		}
		e.m.running.Set(0)
	}()
	for {
		if len(running) == 0 {
			s, ok := e.sched.next()
			if !ok {
				return
			}
			running = append(running, s)
		}
		running, _, _ = e.sched.form(running, len(running), e.o.LLMMaxSeqs, one, time.Time{}, nil)
		// Drop sequences whose clients went away; count the prompt tokens
		// of those this step prefills.
		kept := running[:0]
		prompt := 0
		for _, s := range running {
			if s.ctx.Err() != nil {
				continue
			}
			if !s.admitted {
				s.admitted = true
				prompt += s.prompt
			}
			kept = append(kept, s)
		}
		clear(running[len(kept):])
		running = kept
		e.m.waiting.Set(float64(e.sched.pending()))
		e.m.running.Set(float64(len(running)))
		if len(running) == 0 {
			continue
		}
		if !e.sched.sleep(timer, e.stepCost(len(running), prompt)) {
			return
		}
		now := time.Now()
		e.m.promptToks.Add(float64(prompt))
		e.m.genTokens.Add(float64(len(running)))
		e.m.iterTokens.Observe(float64(prompt + len(running)))
		emit = emit[:0]
		left := 0
		for _, s := range running {
			s.gen++
			t := llmToken{text: s.token(s.gen - 1)}
			if e.m.generated(s, now) {
				t.finish = "length"
			} else {
				left++
			}
			emit = append(emit, t)
		}
		// Metrics first, so a client that has its last token sees them.
		e.m.running.Set(float64(left))
		kept = running[:0]
		for i, s := range running {
			s.events <- emit[i]
			if emit[i].finish == "" {
				kept = append(kept, s)
			}
		}
		clear(running[len(kept):])
		running = kept
	}
}

// vocabText is the sim-llm's vocabulary.
const vocabText = `the a model token batch queue latency tail throughput cache
	kernel tensor layer request server client step prefill decode stream
	gate baseline trial knee budget cost memory bandwidth compute scale
	fast slow steady noisy warm cold`

// token returns the sequence's i-th token text: a word picked by mixing
// the seed, the prompt hash and i (SplitMix64), then a space.
func (s *llmSeq) token(i int) string {
	z := s.seed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	z ^= z >> 31
	return s.vocab[z%uint64(len(s.vocab))] + " "
}

// promptTokens counts a prompt's tokens as its whitespace-separated words,
// at least one.
func promptTokens(text string) int { return max(1, len(strings.Fields(text))) }

// seedFor mixes the request's seed with the prompt, so different prompts
// give different completions and the same prompt the same one.
func seedFor(seed uint64, prompt string) uint64 {
	h := fnv.New64a()
	h.Write([]byte(prompt))
	return seed ^ h.Sum64()
}
