package refserver

import (
	"context"
	"errors"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
)

// grpcService is the KServe v2 gRPC service over the same models and
// batcher as the HTTP endpoint; responses carry raw_output_contents, as
// Triton's do.
type grpcService struct {
	kservepb.UnimplementedGRPCInferenceServiceServer
	s *Server
}

var _ kservepb.GRPCInferenceServiceServer = (*grpcService)(nil)

func (g *grpcService) ServerLive(context.Context, *kservepb.ServerLiveRequest) (*kservepb.ServerLiveResponse, error) {
	return &kservepb.ServerLiveResponse{Live: true}, nil
}

func (g *grpcService) ServerReady(context.Context, *kservepb.ServerReadyRequest) (*kservepb.ServerReadyResponse, error) {
	return &kservepb.ServerReadyResponse{Ready: !g.s.closed.Load()}, nil
}

func (g *grpcService) ModelReady(_ context.Context, r *kservepb.ModelReadyRequest) (*kservepb.ModelReadyResponse, error) {
	if _, err := g.s.lookup(r.Name, r.Version); err != nil {
		return nil, grpcError(err)
	}
	return &kservepb.ModelReadyResponse{Ready: !g.s.closed.Load()}, nil
}

func (g *grpcService) ServerMetadata(context.Context, *kservepb.ServerMetadataRequest) (*kservepb.ServerMetadataResponse, error) {
	return &kservepb.ServerMetadataResponse{Name: "perfgate-fixture", Version: modelVersion}, nil
}

func (g *grpcService) ModelMetadata(ctx context.Context, r *kservepb.ModelMetadataRequest) (*kservepb.ModelMetadataResponse, error) {
	m, err := g.s.lookup(r.Name, r.Version)
	if err != nil {
		return nil, grpcError(err)
	}
	if m.info.simulated {
		grpc.SetHeader(ctx, metadata.Pairs(SimulatedHeader, "1"))
	}
	return kserve.MetadataToProto(m.metadata()), nil
}

func (g *grpcService) ModelInfer(ctx context.Context, p *kservepb.ModelInferRequest) (*kservepb.ModelInferResponse, error) {
	start := time.Now()
	m, err := g.s.lookup(p.ModelName, p.ModelVersion)
	if err != nil {
		return nil, grpcError(err)
	}
	if m.info.simulated {
		grpc.SetHeader(ctx, metadata.Pairs(SimulatedHeader, "1"))
	}
	req, err := kserve.RequestFromProto(p)
	if err != nil {
		m.m.failure.WithLabelValues(m.info.name, modelVersion, reasonOther).Inc()
		return nil, status.Errorf(codes.InvalidArgument, "request: %v", err)
	}
	resp, err := g.s.infer(ctx, m, req, start, time.Since(start))
	if err != nil {
		return nil, grpcError(err)
	}
	encStart := time.Now()
	out, err := kserve.ResponseToProto(resp, true)
	if err != nil {
		return nil, status.Errorf(codes.Internal, "encoding response: %v", err)
	}
	m.m.outputUS.With(m.labels).Add(micros(time.Since(encStart)))
	return out, nil
}

// grpcError maps a request error to its gRPC status.
func grpcError(err error) error {
	c := codes.Internal
	switch {
	case errors.Is(err, ErrQueueFull):
		c = codes.ResourceExhausted
	case errors.Is(err, ErrClosed):
		c = codes.Unavailable
	case errors.Is(err, errNotFound):
		c = codes.NotFound
	case errors.Is(err, errInvalid):
		c = codes.InvalidArgument
	case errors.Is(err, context.Canceled):
		c = codes.Canceled
	case errors.Is(err, context.DeadlineExceeded):
		c = codes.DeadlineExceeded
	}
	return status.Error(c, err.Error())
}
