package refserver

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"
)

// Serve serves HTTP on httpLis and, when grpcLis is not nil, gRPC on
// grpcLis, until ctx is done; then it stops accepting, lets requests in
// flight finish for up to five seconds, closes the server and returns nil.
// It returns an error when a listener fails before that. Both listeners
// are closed when it returns.
func (s *Server) Serve(ctx context.Context, httpLis, grpcLis net.Listener) error {
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	errc := make(chan error, 2)
	go func() {
		if err := hs.Serve(httpLis); !errors.Is(err, http.ErrServerClosed) {
			errc <- fmt.Errorf("serving http on %s: %w", httpLis.Addr(), err)
			return
		}
		errc <- nil
	}()
	n := 1
	if grpcLis != nil {
		n++
		go func() { errc <- s.ServeGRPC(grpcLis) }()
	}
	var first error
	select {
	case <-ctx.Done():
	case first = <-errc:
		n--
	}
	sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	s.Close()
	for ; n > 0; n-- {
		if err := <-errc; err != nil && first == nil && !errors.Is(err, ErrClosed) {
			first = err
		}
	}
	return first
}
