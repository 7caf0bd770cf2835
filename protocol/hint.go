package protocol

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"syscall"

	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

// metadataHint names the likely cause when a model's metadata could not
// be read, or "" when the failure says nothing about the address or the
// model (then the payload hint stands: give a body, or a shape and
// datatype):
//
//   - the connection was refused: nothing listens at the address, so the
//     url's host or port is wrong, or, for a target perfgate starts, its
//     command and url do not both use the {port} perfgate fills in;
//   - the server answered not found (HTTP 404, gRPC NotFound): it serves
//     no model of that name, or no metadata at all; list, when not nil,
//     says which models it serves, and so which of the two it is.
func metadataHint(ctx context.Context, model string, err error, list func(context.Context) []string) string {
	switch {
	case refused(err):
		return "nothing listens at that address: check the url's host and port (for a target perfgate starts, put {port} in both its command and its url, so that both use the port perfgate picks)"
	case notFound(err):
		var names []string
		if list != nil {
			names = list(ctx)
		}
		switch {
		case slices.Contains(names, model):
			return "" // it serves the model, but not its metadata
		case len(names) > 0:
			return fmt.Sprintf("the server serves no model named %q: check the model name (--model, or model: in the scenario); it serves: %s", model, strings.Join(names, ", "))
		}
		hint := fmt.Sprintf("the server serves no model named %q: check the model name (--model, or model: in the scenario)", model)
		if errors.As(err, new(*statusError)) {
			// Over HTTP a 404 may also be a server without the metadata
			// route (gRPC's ModelMetadata is part of the service).
			hint += "; or, if it serves no KServe metadata, give a body, or a shape and datatype"
		}
		return hint
	}
	return ""
}

// refused reports whether err is a refused connection, over HTTP (the
// system call's error) or gRPC (which carries it as text in an
// Unavailable status).
func refused(err error) bool {
	if errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	return status.Code(err) == codes.Unavailable && strings.Contains(err.Error(), "connection refused")
}

// notFound reports whether err is a "not found" answer: HTTP 404 or gRPC
// NotFound.
func notFound(err error) bool {
	var se *statusError
	if errors.As(err, &se) {
		return se.code == http.StatusNotFound
	}
	return status.Code(err) == codes.NotFound
}
