package refserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"google.golang.org/grpc"

	"github.com/perfgate/perfgate/kservepb"
	"github.com/perfgate/perfgate/refserver/tinyllm"
)

// Server is the reference inference server: one KServe model (the variant
// Options.Model names, also reachable as "mlp") behind a dynamic batcher,
// and two OpenAI models behind continuous-batching schedulers: tiny-llm, a
// real transformer, and sim-llm, a cost model.
// It serves HTTP through Handler and gRPC through RegisterGRPC or
// ServeGRPC; Close stops it.
type Server struct {
	opts  Options
	reg   *prometheus.Registry
	model *kserveModel
	// names maps each served KServe model name to the model.
	names   map[string]*kserveModel
	llm     *tinyEngine // tiny-llm: the real transformer
	simLLM  *llmEngine  // sim-llm: the cost model
	tiny    *tinyllm.Model
	handler http.Handler

	ids       atomic.Int64 // OpenAI response ids
	closed    atomic.Bool
	closeOnce sync.Once
	mu        sync.Mutex
	grpcs     []*grpc.Server
}

// kserveModel is a backend with its batcher, cache and metric labels.
type kserveModel struct {
	info    modelInfo
	backend backend
	batch   *batcher
	cache   *responseCache // nil when off
	m       *tritonMetrics
	labels  prometheus.Labels
}

// NewServer validates opts, builds the models (generating their weights: a
// fraction of a second for the MLP, tens of milliseconds for the tiny-llm)
// and starts the batcher's workers and the LLM schedulers. Close releases
// them.
func NewServer(opts Options) (*Server, error) {
	if err := opts.Validate(); err != nil {
		return nil, fmt.Errorf("fixture options: %w", err)
	}
	o := opts.withDefaults()
	b, err := newBackend(o)
	if err != nil {
		return nil, err
	}
	s := &Server{opts: o, reg: prometheus.NewRegistry(), names: map[string]*kserveModel{}}
	tm := newTritonMetrics(s.reg)
	km := &kserveModel{info: b.info(), backend: b, m: tm,
		labels: prometheus.Labels{"model": b.info().name, "version": modelVersion}}
	if o.Cache {
		km.cache = newResponseCache(o.CacheEntries)
	}
	km.batch = newBatcher(o, b, func(jobs []*job, items int, _ time.Duration) {
		tm.execCount.With(km.labels).Inc()
		tm.batchSize.With(km.labels).Observe(float64(items))
	})
	s.reg.MustRegister(prometheus.NewGaugeFunc(prometheus.GaugeOpts{
		Name: "nv_inference_pending_request_count", Help: "Instantaneous number of pending requests awaiting execution",
		ConstLabels: km.labels,
	}, func() float64 { return float64(km.batch.pending()) }))
	// Touch the per-model series so they are exported at zero, as Triton
	// does, before the first request.
	for _, c := range []*prometheus.CounterVec{tm.success, tm.count, tm.execCount, tm.requestUS,
		tm.queueUS, tm.computeUS, tm.inputUS, tm.outputUS} {
		c.With(km.labels)
	}
	if km.cache != nil {
		tm.cacheHits.With(km.labels)
		tm.cacheMiss.With(km.labels)
	}
	s.model = km
	s.names[km.info.name] = km
	s.names[NameMLP] = km
	if s.tiny, err = newTinyModel(o); err != nil {
		return nil, err
	}
	s.llm = newTinyEngine(o, s.tiny, newVLLMMetrics(s.reg, NameTinyLLM))
	s.simLLM = newLLMEngine(o, newVLLMMetrics(s.reg, NameSimLLM))
	s.handler = s.routes()
	return s, nil
}

// Options returns the options the server runs with, defaults filled in.
func (s *Server) Options() Options { return s.opts }

// ModelName is the KServe model's own name: mlp, mlp-sim or mlp-large
// (each variant also answers to mlp).
func (s *Server) ModelName() string { return s.model.info.name }

// Simulated reports whether the KServe model's timing comes from the cost
// model rather than computation.
func (s *Server) Simulated() bool { return s.model.info.simulated }

// Registry is the server's own Prometheus registry (no global state), the
// one /metrics exports.
func (s *Server) Registry() *prometheus.Registry { return s.reg }

// Handler returns the HTTP handler: KServe v2 (/v2/...), OpenAI
// (/v1/chat/completions, /v1/completions, /v1/models) and /metrics.
func (s *Server) Handler() http.Handler { return s.handler }

// RegisterGRPC registers the KServe v2 gRPC service on g.
func (s *Server) RegisterGRPC(g *grpc.Server) {
	kservepb.RegisterGRPCInferenceServiceServer(g, &grpcService{s: s})
}

// ServeGRPC serves the KServe v2 gRPC service on lis until Close, then
// returns nil; it returns an error if serving fails otherwise. It accepts
// messages up to 64 MiB (the large model's input is 600 KB).
func (s *Server) ServeGRPC(lis net.Listener) error {
	g := grpc.NewServer(grpc.MaxRecvMsgSize(64<<20), grpc.MaxSendMsgSize(64<<20))
	s.RegisterGRPC(g)
	s.mu.Lock()
	if s.closed.Load() {
		s.mu.Unlock()
		lis.Close()
		return ErrClosed
	}
	s.grpcs = append(s.grpcs, g)
	s.mu.Unlock()
	if err := g.Serve(lis); err != nil {
		return fmt.Errorf("serving grpc on %s: %w", lis.Addr(), err)
	}
	return nil
}

// Close stops the gRPC servers ServeGRPC started (gracefully, for at most
// two seconds), the batcher's workers and the LLM scheduler. Requests still
// queued fail with ErrClosed; readiness turns false. HTTP listeners belong
// to the caller (http.Server.Shutdown, httptest.Server.Close). Close is
// idempotent.
func (s *Server) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed.Store(true)
		gs := s.grpcs
		s.mu.Unlock()
		var wg sync.WaitGroup
		for _, g := range gs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				t := time.AfterFunc(2*time.Second, g.Stop)
				g.GracefulStop()
				t.Stop()
			}()
		}
		wg.Wait()
		s.model.batch.close()
		s.llm.close()
		s.simLLM.close()
	})
	return nil
}

// errNotFound and errInvalid classify request failures.
var (
	errNotFound = errors.New("not found")
	errInvalid  = errors.New("invalid request")
)

// lookup returns the KServe model name and version (empty or "1") address.
func (s *Server) lookup(name, version string) (*kserveModel, error) {
	m := s.names[name]
	if m == nil || (version != "" && version != modelVersion) {
		return nil, fmt.Errorf("model %q version %q: %w", name, version, errNotFound)
	}
	return m, nil
}

// waitJob waits for j or ctx, whichever first.
func waitJob(ctx context.Context, j *job) error {
	select {
	case <-j.done:
		return j.err
	case <-ctx.Done():
		return ctx.Err()
	}
}
