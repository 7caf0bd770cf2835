package refserver

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/perfgate/perfgate/kserve"
)

// maxRequestBatch bounds the batch dimension of one request.
const maxRequestBatch = 1024

// infer runs one KServe request through cache, queue and model, counting
// it in the Triton metrics. start is when the request arrived (before its
// body was decoded) and decoded how long decoding took.
func (s *Server) infer(ctx context.Context, m *kserveModel, req *kserve.InferRequest, start time.Time, decoded time.Duration) (*kserve.InferResponse, error) {
	tm, l := m.m, m.labels
	fail := func(reason string, err error) (*kserve.InferResponse, error) {
		tm.failure.WithLabelValues(m.info.name, modelVersion, reason).Inc()
		return nil, err
	}
	x, batch, err := m.input(req)
	if err != nil {
		return fail(reasonOther, err)
	}
	tm.inputUS.With(l).Add(micros(decoded))
	var key cacheKey
	if m.cache != nil {
		key = keyOf(m.info.name, batch, x)
		if y, ok := m.cache.get(key); ok {
			tm.cacheHits.With(l).Inc()
			tm.success.With(l).Inc()
			tm.count.With(l).Add(float64(batch))
			tm.requestUS.With(l).Add(micros(time.Since(start)))
			return m.response(req, y, batch, true), nil
		}
		tm.cacheMiss.With(l).Inc()
	}
	j := &job{ctx: ctx, x: x, batch: batch}
	if err := m.batch.submit(j); err != nil {
		if errors.Is(err, ErrQueueFull) {
			return fail(reasonRejected, fmt.Errorf("model %s: %w (%d waiting)", m.info.name, err, m.batch.capacity()))
		}
		return fail(reasonOther, err)
	}
	if err := waitJob(ctx, j); err != nil {
		switch {
		case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
			return fail(reasonCanceled, err)
		case errors.Is(err, ErrClosed):
			return fail(reasonOther, err)
		}
		return fail(reasonBackend, fmt.Errorf("model %s: %w", m.info.name, err))
	}
	if m.cache != nil {
		m.cache.put(key, j.y)
	}
	tm.success.With(l).Inc()
	tm.count.With(l).Add(float64(batch))
	tm.queueUS.With(l).Add(micros(j.queue))
	tm.computeUS.With(l).Add(micros(j.compute))
	tm.requestUS.With(l).Add(micros(time.Since(start)))
	return m.response(req, j.y, batch, false), nil
}

// input checks that req carries one floating-point tensor holding a whole
// number of the model's items and returns its values and batch size.
func (m *kserveModel) input(req *kserve.InferRequest) ([]float32, int, error) {
	if len(req.Inputs) != 1 {
		return nil, 0, fmt.Errorf("%w: model %s takes 1 input, got %d", errInvalid, m.info.name, len(req.Inputs))
	}
	t := &req.Inputs[0]
	if kserve.KindOf(t.Datatype) != kserve.KindFloat {
		return nil, 0, fmt.Errorf("%w: input %q: datatype %s, want FP32", errInvalid, t.Name, t.Datatype)
	}
	n := len(t.Data.Float)
	if n == 0 || n%m.info.inSize != 0 || n/m.info.inSize > maxRequestBatch {
		return nil, 0, fmt.Errorf("%w: input %q: %d values, want a batch of 1 to %d items of %v (%d values each)",
			errInvalid, t.Name, n, maxRequestBatch, m.info.inShape, m.info.inSize)
	}
	for _, o := range req.Outputs {
		if o.Name != m.info.output {
			return nil, 0, fmt.Errorf("%w: requested output %q: model %s has only %q", errInvalid, o.Name, m.info.name, m.info.output)
		}
	}
	x := make([]float32, n)
	for i, v := range t.Data.Float {
		x[i] = float32(v)
	}
	return x, n / m.info.inSize, nil
}

// response wraps batch outputs y as the model's output tensor. The
// parameters say when the timing was simulated and when the cache answered.
func (m *kserveModel) response(req *kserve.InferRequest, y []float32, batch int, cached bool) *kserve.InferResponse {
	out := kserve.Tensor{Name: m.info.output, Datatype: "FP32",
		Shape: append([]int64{int64(batch)}, m.info.outShape...), Data: kserve.Data{Float: make([]float64, len(y))}}
	for i, v := range y {
		out.Data.Float[i] = float64(v)
	}
	r := &kserve.InferResponse{ModelName: m.info.name, ModelVersion: modelVersion, ID: req.ID, Outputs: []kserve.Tensor{out}}
	if m.info.simulated || cached {
		r.Parameters = map[string]any{}
		if m.info.simulated {
			r.Parameters["simulated"] = true
		}
		if cached {
			r.Parameters["cached"] = true
		}
	}
	return r
}

// metadata is the model's KServe metadata; the batch dimension is -1.
func (m *kserveModel) metadata() *kserve.ModelMetadata {
	return &kserve.ModelMetadata{
		Name: m.info.name, Versions: []string{modelVersion}, Platform: m.info.platform,
		Inputs:  []kserve.TensorMetadata{{Name: m.info.input, Datatype: "FP32", Shape: append([]int64{-1}, m.info.inShape...)}},
		Outputs: []kserve.TensorMetadata{{Name: m.info.output, Datatype: "FP32", Shape: append([]int64{-1}, m.info.outShape...)}},
	}
}

func micros(d time.Duration) float64 { return float64(d) / float64(time.Microsecond) }
