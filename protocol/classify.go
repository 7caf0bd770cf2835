package protocol

import (
	"context"
	"errors"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/harness/h1"
)

// classify maps a transport error to an error class: canceled when the run
// was stopped, timeout, protocol, connection, else what
// harness.ClassifyError says.
func classify(ctx context.Context, err error) string {
	switch {
	case ctx.Err() != nil && errors.Is(err, context.Canceled):
		return harness.ErrCanceled
	case h1.IsTimeout(err), errors.Is(err, context.DeadlineExceeded):
		return harness.ErrTimeout
	case errors.Is(err, h1.ErrProtocol):
		return harness.ErrProtocol
	case errors.Is(err, h1.ErrConnection), errors.Is(err, h1.ErrClosed):
		return harness.ErrConnection
	}
	return harness.ClassifyError(ctx, err)
}

// GRPCClass maps a gRPC error to an error class: DeadlineExceeded is a
// timeout, Unavailable a connection error, Canceled while the run is
// stopping canceled; any other code is "grpc_<Code>" (grpc_ResourceExhausted).
func GRPCClass(ctx context.Context, err error) (class string, code codes.Code) {
	st, ok := status.FromError(err)
	if !ok {
		return classify(ctx, err), codes.Unknown
	}
	code = st.Code()
	switch code {
	case codes.DeadlineExceeded:
		return harness.ErrTimeout, code
	case codes.Unavailable:
		return harness.ErrConnection, code
	case codes.Canceled:
		if ctx.Err() != nil {
			if errors.Is(ctx.Err(), context.DeadlineExceeded) {
				return harness.ErrTimeout, code
			}
			return harness.ErrCanceled, code
		}
	}
	return "grpc_" + code.String(), code
}
