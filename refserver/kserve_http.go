package refserver

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"mime"
	"net/http"
	"slices"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
	"google.golang.org/protobuf/proto"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
)

// maxBody bounds a request body: the large model's input is about 2 MB of
// JSON.
const maxBody = 64 << 20

// SimulatedHeader is set to "1" on every response whose timing comes from
// a cost model (the sim KServe model, the tiny-llm).
const SimulatedHeader = "X-Perfgate-Simulated"

// Content types of the HTTP infer endpoint.
const (
	contentJSON     = "application/json"
	contentProtobuf = "application/x-protobuf"
)

func (s *Server) routes() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("GET /v2/health/live", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, kserve.ServerLive{Live: true})
	})
	mux.HandleFunc("GET /v2/health/ready", func(w http.ResponseWriter, r *http.Request) {
		if s.closed.Load() {
			writeJSON(w, http.StatusServiceUnavailable, kserve.ServerReady{Ready: false})
			return
		}
		writeJSON(w, http.StatusOK, kserve.ServerReady{Ready: true})
	})
	mux.HandleFunc("GET /v2", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string]any{"name": "perfgate-fixture", "version": modelVersion, "extensions": []string{}})
	})
	mux.HandleFunc("GET /v2/models/{model}", s.httpMetadata)
	// Triton's model repository index: the models served, so a client
	// that named a wrong one can say which exist.
	mux.HandleFunc("POST /v2/repository/index", func(w http.ResponseWriter, r *http.Request) {
		idx := []map[string]string{}
		for _, n := range slices.Sorted(maps.Keys(s.names)) {
			idx = append(idx, map[string]string{"name": n, "version": modelVersion, "state": "READY"})
		}
		writeJSON(w, http.StatusOK, idx)
	})
	mux.HandleFunc("GET /v2/models/{model}/versions/{version}", s.httpMetadata)
	mux.HandleFunc("GET /v2/models/{model}/ready", s.httpModelReady)
	mux.HandleFunc("GET /v2/models/{model}/versions/{version}/ready", s.httpModelReady)
	mux.HandleFunc("POST /v2/models/{model}/infer", s.httpInfer)
	mux.HandleFunc("POST /v2/models/{model}/versions/{version}/infer", s.httpInfer)
	mux.HandleFunc("POST /v1/chat/completions", s.openAIChat)
	mux.HandleFunc("POST /v1/completions", s.openAICompletions)
	mux.HandleFunc("GET /v1/models", s.openAIModels)
	mux.HandleFunc("GET /v1/models/{model}", s.openAIModelInfo)
	mux.Handle("GET /metrics", promhttp.HandlerFor(s.reg, promhttp.HandlerOpts{}))
	return mux
}

// metadataJSON is the KServe metadata with a parameters object that
// declares simulated timing.
type metadataJSON struct {
	*kserve.ModelMetadata
	Parameters map[string]any `json:"parameters,omitempty"`
}

func (s *Server) httpMetadata(w http.ResponseWriter, r *http.Request) {
	m, err := s.lookup(r.PathValue("model"), r.PathValue("version"))
	if err != nil {
		writeError(w, err)
		return
	}
	md := metadataJSON{ModelMetadata: m.metadata(), Parameters: map[string]any{
		"precision": m.info.precision, "max_batch_size": s.opts.MaxBatch,
		"batch_window_us": s.opts.BatchWindow.Microseconds(), "instances": s.opts.Instances,
	}}
	if m.info.simulated {
		md.Parameters["simulated"] = true
		w.Header().Set(SimulatedHeader, "1")
	}
	writeJSON(w, http.StatusOK, md)
}

func (s *Server) httpModelReady(w http.ResponseWriter, r *http.Request) {
	if _, err := s.lookup(r.PathValue("model"), r.PathValue("version")); err != nil {
		writeError(w, err)
		return
	}
	if s.closed.Load() {
		writeJSON(w, http.StatusServiceUnavailable, map[string]any{"name": r.PathValue("model"), "ready": false})
		return
	}
	writeJSON(w, http.StatusOK, map[string]any{"name": r.PathValue("model"), "ready": true})
}

// httpInfer decodes a JSON body (or, by Content-Type or Options.Codec, a
// serialized ModelInferRequest), runs it, and answers in the same codec.
func (s *Server) httpInfer(w http.ResponseWriter, r *http.Request) {
	start := time.Now()
	m, err := s.lookup(r.PathValue("model"), r.PathValue("version"))
	if err != nil {
		writeError(w, err)
		return
	}
	if m.info.simulated {
		w.Header().Set(SimulatedHeader, "1")
	}
	useProto := s.opts.Codec == CodecProtobuf
	if ct, _, err := mime.ParseMediaType(r.Header.Get("Content-Type")); err == nil {
		switch ct {
		case contentJSON:
			useProto = false
		case contentProtobuf, "application/protobuf", "application/vnd.google.protobuf":
			useProto = true
		}
	}
	body, err := io.ReadAll(http.MaxBytesReader(w, r.Body, maxBody))
	if err != nil {
		m.m.failure.WithLabelValues(m.info.name, modelVersion, reasonOther).Inc()
		writeError(w, fmt.Errorf("%w: reading body: %w", errInvalid, err))
		return
	}
	req, err := decodeInfer(body, useProto)
	if err != nil {
		m.m.failure.WithLabelValues(m.info.name, modelVersion, reasonOther).Inc()
		writeError(w, err)
		return
	}
	resp, err := s.infer(r.Context(), m, req, start, time.Since(start))
	if err != nil {
		writeError(w, err)
		return
	}
	encStart := time.Now()
	var out []byte
	if useProto {
		var p *kservepb.ModelInferResponse
		if p, err = kserve.ResponseToProto(resp, true); err == nil {
			out, err = proto.Marshal(p)
		}
		w.Header().Set("Content-Type", contentProtobuf)
	} else {
		out, err = json.Marshal(resp)
		w.Header().Set("Content-Type", contentJSON)
	}
	if err != nil {
		writeError(w, fmt.Errorf("encoding response: %w", err))
		return
	}
	m.m.outputUS.With(m.labels).Add(micros(time.Since(encStart)))
	w.WriteHeader(http.StatusOK)
	w.Write(out)
}

// decodeInfer reads a KServe infer request from JSON or protobuf bytes.
func decodeInfer(body []byte, useProto bool) (*kserve.InferRequest, error) {
	if useProto {
		var p kservepb.ModelInferRequest
		if err := proto.Unmarshal(body, &p); err != nil {
			return nil, fmt.Errorf("%w: protobuf body: %w", errInvalid, err)
		}
		req, err := kserve.RequestFromProto(&p)
		if err != nil {
			return nil, fmt.Errorf("%w: protobuf body: %w", errInvalid, err)
		}
		return req, nil
	}
	var req kserve.InferRequest
	if err := json.Unmarshal(body, &req); err != nil {
		return nil, fmt.Errorf("%w: json body: %w", errInvalid, err)
	}
	return &req, nil
}

// httpStatus maps a request error to its HTTP status.
func httpStatus(err error) int {
	switch {
	case errors.Is(err, ErrQueueFull):
		return http.StatusTooManyRequests
	case errors.Is(err, ErrClosed):
		return http.StatusServiceUnavailable
	case errors.Is(err, errNotFound):
		return http.StatusNotFound
	case errors.Is(err, errInvalid):
		return http.StatusBadRequest
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return 499 // client closed request (nginx's convention)
	}
	return http.StatusInternalServerError
}

func writeError(w http.ResponseWriter, err error) {
	writeJSON(w, httpStatus(err), kserve.ErrorResponse{Error: err.Error()})
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", contentJSON)
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}
