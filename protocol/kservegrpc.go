package protocol

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/kserve"
	"github.com/perfgate/perfgate/kservepb"
)

// KServeGRPCClient sends KServe v2 ModelInfer calls over gRPC. It spreads
// calls round-robin over a small pool of connections (min(DefaultGRPCConns,
// MaxConns)): one HTTP/2 connection serializes its frames through one
// writer, so a few hold a high rate where one would queue.
//
// The request is converted (tensors to raw_input_contents) and marshaled
// once; every call sends the same bytes through a pass-through codec, and
// the response is checked on the wire without being decoded. Latency is
// wall-clock time around conn.Invoke.
type KServeGRPCClient struct {
	o       Options
	conns   []*grpc.ClientConn
	next    atomic.Uint64
	req     preEncoded
	callOpt []grpc.CallOption
	md      metadata.MD // Options.Headers, sent as request metadata
	base    *kserve.InferRequest
}

var (
	_ harness.Client = (*KServeGRPCClient)(nil)
	_ harness.Closer = (*KServeGRPCClient)(nil)
)

// NewKServeGRPC dials o.URL (host:port, plaintext) and prepares the request:
// o.Body converted to protobuf, else a random one from ModelMetadata or
// o.Shape and o.Datatype.
func NewKServeGRPC(ctx context.Context, o Options) (*KServeGRPCClient, error) {
	o = o.withDefaults()
	if o.Model == "" {
		return nil, fmt.Errorf("kserve-grpc: %w", ErrNoModel)
	}
	if strings.Contains(o.URL, "://") {
		return nil, fmt.Errorf("kserve-grpc: url %q: want host:port, without a scheme", o.URL)
	}
	c := &KServeGRPCClient{o: o, callOpt: []grpc.CallOption{grpc.ForceCodecV2(newRawCodec())}}
	if len(o.Headers) > 0 {
		c.md = metadata.New(o.Headers) // keys are lower-cased, as gRPC wants
	}
	n := min(DefaultGRPCConns, o.MaxConns)
	creds := insecure.NewCredentials()
	if o.TLS != nil {
		creds = credentials.NewTLS(o.TLS)
	}
	for range n {
		cc, err := grpc.NewClient(o.URL, grpc.WithTransportCredentials(creds))
		if err != nil {
			c.Close()
			return nil, fmt.Errorf("kserve-grpc: url %q: %w", o.URL, err)
		}
		c.conns = append(c.conns, cc)
	}
	var (
		req *kserve.InferRequest
		err error
	)
	if len(o.Body) > 0 {
		req, err = DecodeTensors(o.BodyPath, o.Body)
	} else {
		req, err = defaultRequest(ctx, &o, c.Metadata, nil)
	}
	if err != nil {
		c.Close()
		return nil, err
	}
	if c.req, err = c.encode(req); err != nil {
		c.Close()
		return nil, fmt.Errorf("payload %s: %w", o.BodyPath, err)
	}
	c.base = req
	return c, nil
}

// Request returns the request sent when a hit has no payload.
func (c *KServeGRPCClient) Request() *kserve.InferRequest { return c.base }

func (c *KServeGRPCClient) encode(r *kserve.InferRequest) (preEncoded, error) {
	p, err := kserve.RequestToProto(c.o.Model, "", r, true)
	if err != nil {
		return nil, err
	}
	return encodeRequest(p)
}

// conn returns the next connection, round-robin.
func (c *KServeGRPCClient) conn() *grpc.ClientConn {
	return c.conns[c.next.Add(1)%uint64(len(c.conns))]
}

// Do implements harness.Client. A hit's payload is a JSON infer request,
// converted for that call.
func (c *KServeGRPCClient) Do(ctx context.Context, h harness.Hit) harness.Sample {
	req := c.req
	if h.Payload != nil {
		r, err := DecodeTensors("trace payload", h.Payload)
		if err == nil {
			req, err = c.encode(r)
		}
		if err != nil {
			now := time.Now()
			return harness.Sample{Hit: h, Start: now, End: now, Class: harness.ErrProtocol, Err: err.Error()}
		}
	}
	cctx, cancel := context.WithTimeout(ctx, c.o.Timeout)
	if c.md != nil {
		cctx = metadata.NewOutgoingContext(cctx, c.md)
	}
	var sink inferSink
	cc := c.conn()
	s := harness.Sample{Hit: h, Start: time.Now()}
	err := cc.Invoke(cctx, kservepb.GRPCInferenceService_ModelInfer_FullMethodName, req, &sink, c.callOpt...)
	s.End = time.Now()
	cancel()
	if err != nil {
		class, code := GRPCClass(ctx, err)
		s.Class, s.Code = class, int(code)
		if st, ok := status.FromError(err); ok {
			// The server chooses the message, up to megabytes: cut here,
			// so no sample in flight holds more.
			s.Err = harness.ClipErr(st.Message())
			// The codec's check failed: the response arrived but is not
			// an infer response.
			if strings.Contains(s.Err, "failed to unmarshal") {
				s.Class = harness.ErrProtocol
			}
		} else {
			s.Err = harness.ClipErr(err.Error())
		}
	}
	return s
}

func (c *KServeGRPCClient) client() kservepb.GRPCInferenceServiceClient {
	return kservepb.NewGRPCInferenceServiceClient(c.conns[0])
}

// withMD adds the headers to a setup call's context (an auth token, say).
func (c *KServeGRPCClient) withMD(ctx context.Context) context.Context {
	if c.md == nil {
		return ctx
	}
	return metadata.NewOutgoingContext(ctx, c.md)
}

// Ready calls ServerReady and wants ready = true.
func (c *KServeGRPCClient) Ready(ctx context.Context) error {
	r, err := c.client().ServerReady(c.withMD(ctx), &kservepb.ServerReadyRequest{})
	if err != nil {
		return fmt.Errorf("ServerReady %s: %w", c.o.URL, err)
	}
	if !r.GetReady() {
		return fmt.Errorf("ServerReady %s: not ready", c.o.URL)
	}
	return nil
}

// Metadata calls ModelMetadata for the client's model.
func (c *KServeGRPCClient) Metadata(ctx context.Context) (*kserve.ModelMetadata, error) {
	r, err := c.client().ModelMetadata(c.withMD(ctx), &kservepb.ModelMetadataRequest{Name: c.o.Model})
	if err != nil {
		return nil, fmt.Errorf("ModelMetadata %q at %s: %w", c.o.Model, c.o.URL, err)
	}
	return kserve.MetadataFromProto(r), nil
}

// Close closes every connection.
func (c *KServeGRPCClient) Close() error {
	var errs []error
	for _, cc := range c.conns {
		errs = append(errs, cc.Close())
	}
	return errors.Join(errs...)
}
