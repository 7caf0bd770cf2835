package refserver

import (
	"fmt"
	"math"
	"runtime"
	"time"

	"github.com/perfgate/perfgate/refserver/tinyllm"
)

// llmServing is what the OpenAI endpoint needs of an LLM engine: the real
// transformer (tinyEngine) or the cost model (llmEngine).
type llmServing interface {
	submit(seq *llmSeq) error
	close()
}

var (
	_ llmServing = (*tinyEngine)(nil)
	_ llmServing = (*llmEngine)(nil)
)

// tinySeq is a sequence's state in the real engine.
type tinySeq struct {
	tokens  []int // the prompt
	done    int   // prompt tokens prefilled so far
	next    int   // the token the next decode step feeds
	cache   *tinyllm.Cache
	sampler *tinyllm.Sampler
	logits  []float32
	probs   []float64 // the sampler's buffer
}

// seqPool keeps finished sequences' KV caches and buffers for the next
// sequences admitted, as vLLM allocates its KV cache blocks once and
// reuses them: without it every sequence grows a cache of its own, and a
// fresh server runs slower until its heap stops growing (its first
// trials slower than its later ones: the note first-trial). It holds at
// most poolBytes; a cache grown past that by a long sequence is dropped.
type seqPool struct {
	model *tinyllm.Model
	free  []tinySeq
	bytes int
}

const poolBytes = 64 << 20

// get gives t a cache and buffers: a finished sequence's, or new ones.
func (p *seqPool) get(t *tinySeq) {
	if n := len(p.free); n > 0 {
		f := p.free[n-1]
		p.free = p.free[:n-1]
		p.bytes -= f.cache.Bytes()
		t.cache, t.logits, t.probs = f.cache, f.logits, f.probs
	} else {
		t.cache = p.model.NewCache()
		t.logits = make([]float32, p.model.VocabSize())
		t.probs = make([]float64, p.model.VocabSize())
	}
	t.sampler.Use(t.probs)
}

// put takes back t's cache and buffers, once t will not run again.
func (p *seqPool) put(t *tinySeq) {
	if t.cache == nil {
		return
	}
	if b := t.cache.Bytes(); p.bytes+b <= poolBytes {
		t.cache.Reset()
		p.free = append(p.free, tinySeq{cache: t.cache, logits: t.logits, probs: t.probs})
		p.bytes += b
	}
	t.cache, t.logits, t.probs = nil, nil, nil
	t.sampler.Use(nil)
}

// tinyEngine serves the tiny-llm, a real transformer (package tinyllm),
// the way vLLM's engine core does: one loop runs steps back to back; each
// step admits waiting sequences while fewer than LLMMaxSeqs run, then
// makes one batch of every running sequence's work (the next token of each
// decoding sequence, and a prompt or a prompt chunk of each prefilling
// one) and computes it in one model.Forward call: every linear layer is
// one matrix product over the rows of all sequences. A sequence whose
// prompt completes in a step gets its first token from that step, so time
// to first token is the queueing plus the steps that carried its prompt.
// With LLMMaxBatchedTokens > 0 a step carries at most that many tokens,
// decode tokens first, and long prompts are prefilled in chunks (vLLM's
// chunked prefill), so running sequences keep streaming while a long
// prompt is read. Every time in the metrics is measured.
//
// It is a scheduler (scheduler.go) with one loop.
type tinyEngine struct {
	o     Options
	model *tinyllm.Model
	m     *vllmMetrics
	sched *scheduler[*llmSeq]
}

func newTinyEngine(o Options, model *tinyllm.Model, m *vllmMetrics) *tinyEngine {
	e := &tinyEngine{o: o, model: model, m: m, sched: newScheduler(o.Queue, failSeq)}
	e.sched.start(1, e.loop)
	return e
}

// newTinyModel builds the tiny-llm in the server's precision from its
// seed.
func newTinyModel(o Options) (*tinyllm.Model, error) {
	m, err := tinyllm.New(tinyllm.Config{Seed: o.Seed, Precision: tinyllm.Precision(o.Precision)})
	if err != nil {
		return nil, fmt.Errorf("building %s: %w", NameTinyLLM, err)
	}
	return m, nil
}

// submit queues seq or returns ErrQueueFull or ErrClosed at once.
func (e *tinyEngine) submit(seq *llmSeq) error {
	return e.sched.submit(seq, func(seq *llmSeq) {
		seq.arrived = time.Now()
		seq.events = make(chan llmToken, seq.max+1)
	})
}

func (e *tinyEngine) close() { e.sched.close() }

func (e *tinyEngine) loop() {
	var waiting, running []*llmSeq
	var items []tinyllm.Item
	var owners []*llmSeq // the sequence of each item
	pool := seqPool{model: e.model}
	// retire drops the running sequences that ok rejects and takes back
	// their memory.
	retire := func(running []*llmSeq, ok func(*llmSeq) bool) []*llmSeq {
		return keep(running, func(s *llmSeq) bool {
			if ok(s) {
				return true
			}
			pool.put(&s.tiny)
			return false
		})
	}
	defer func() {
		for _, s := range append(waiting, running...) {
			failSeq(s)
		}
		e.m.running.Set(0)
		e.m.waiting.Set(0)
	}()
	for {
		if len(waiting) == 0 && len(running) == 0 {
			s, ok := e.sched.next()
			if !ok {
				return
			}
			waiting = append(waiting, s)
		}
		if e.sched.closing() {
			return
		}
		// Every queued sequence waits here, in arrival order.
		waiting, _, _ = e.sched.form(waiting, 0, math.MaxInt, one, time.Time{}, nil)
		// Admit in arrival order; drop sequences whose clients went away.
		waiting = dropGone(waiting)
		for len(running) < e.o.LLMMaxSeqs && len(waiting) > 0 {
			s := waiting[0]
			waiting = waiting[1:]
			pool.get(&s.tiny)
			running = append(running, s)
		}
		running = retire(running, func(s *llmSeq) bool { return s.ctx.Err() == nil })
		e.m.waiting.Set(float64(len(waiting) + e.sched.pending()))
		e.m.running.Set(float64(len(running)))
		if len(running) == 0 {
			continue
		}
		items, owners = e.batch(running, items[:0], owners[:0])
		prompt := 0
		for i, it := range items {
			if owners[i].tiny.done < len(owners[i].tiny.tokens) {
				prompt += len(it.Tokens)
			}
		}
		err := e.model.Forward(items)
		now := time.Now()
		if err != nil {
			// Only a bug gets here (requests are checked on arrival): fail
			// the batch rather than the server.
			for _, s := range owners {
				s.events <- llmToken{err: fmt.Errorf("%s: %w", NameTinyLLM, err)}
				s.gen = -1
			}
			running = retire(running, func(s *llmSeq) bool { return s.gen >= 0 })
			continue
		}
		e.m.promptToks.Add(float64(prompt))
		tokens := 0
		for _, it := range items {
			tokens += len(it.Tokens)
		}
		e.m.iterTokens.Observe(float64(tokens))
		finished := 0
		for i, it := range items {
			s := owners[i]
			t := &s.tiny
			if t.done < len(t.tokens) {
				t.done += len(it.Tokens)
			}
			if it.Logits == nil {
				continue // a prompt chunk that is not the last
			}
			tok := t.sampler.Next(t.logits)
			t.next = tok
			s.gen++
			e.m.genTokens.Inc()
			ev := llmToken{text: string(e.model.Tokenizer().Piece(tok))}
			if e.m.generated(s, now) {
				ev.finish = "length"
				finished++
			}
			s.last = ev
		}
		// Metrics first, so a client that has its last token sees them.
		e.m.running.Set(float64(len(running) - finished))
		for i, it := range items {
			if it.Logits != nil {
				owners[i].events <- owners[i].last
			}
		}
		running = retire(running, func(s *llmSeq) bool { return s.gen < s.max })
		// Let the handlers stream this step's tokens before the next step
		// takes the core: with one core (GOMAXPROCS=1, as the demo runs
		// it) they would otherwise wait for the scheduler to preempt the
		// loop, and tokens would reach clients in bursts. vLLM runs its
		// engine in a process of its own for the same reason.
		runtime.Gosched()
	}
}

// batch builds one step's items: one token for each decoding sequence,
// then prompts (or, with a token budget, chunks of them) in admission
// order.
func (e *tinyEngine) batch(running []*llmSeq, items []tinyllm.Item, owners []*llmSeq) ([]tinyllm.Item, []*llmSeq) {
	budget := e.o.LLMMaxBatchedTokens
	used := 0
	for _, s := range running {
		if t := &s.tiny; t.done == len(t.tokens) {
			items = append(items, tinyllm.Item{Cache: t.cache, Tokens: []int{t.next}, Logits: t.logits})
			owners = append(owners, s)
			used++
		}
	}
	for _, s := range running {
		t := &s.tiny
		if t.done == len(t.tokens) {
			continue
		}
		n := len(t.tokens) - t.done
		if budget > 0 {
			n = min(n, budget-used)
		}
		if n <= 0 {
			break
		}
		it := tinyllm.Item{Cache: t.cache, Tokens: t.tokens[t.done : t.done+n]}
		if t.done+n == len(t.tokens) {
			it.Logits = t.logits
		}
		items = append(items, it)
		owners = append(owners, s)
		used += n
	}
	return items, owners
}

// dropGone removes the sequences whose requests were cancelled.
func dropGone(seqs []*llmSeq) []*llmSeq {
	return keep(seqs, func(s *llmSeq) bool { return s.ctx.Err() == nil })
}

// keep filters seqs in place.
func keep(seqs []*llmSeq, ok func(*llmSeq) bool) []*llmSeq {
	kept := seqs[:0]
	for _, s := range seqs {
		if ok(s) {
			kept = append(kept, s)
		}
	}
	clear(seqs[len(kept):])
	return kept
}
