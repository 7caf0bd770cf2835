// Package http1 is a lean HTTP/1.1 client for the load generator's hot path.
//
// net/http spends roughly 15-25 µs of CPU and a few dozen allocations per
// request on machinery a load generator does not need: a reader and a
// writer goroutine per connection, header maps, redirect handling, response
// objects. A generator whose own cost is that high saturates its core
// before the server does, and then it measures itself. http1 does the minimum:
//
//   - One host and port, plain http only (https:// is refused with an
//     error; use net/http for it).
//   - A fixed pool of at most MaxConns persistent TCP connections. A request
//     borrows one, blocking while all are busy (honouring the context), and
//     dials it lazily on first use or after an error. Idle open connections
//     are taken before unopened slots, the one used last first, so a client
//     opens only as many connections as were ever busy at once and keeps
//     few of them hot.
//   - The request (request line, headers, Content-Length and body) is built
//     once by New and written with a single write. A per-request body is
//     appended into a buffer the connection keeps. On unix the write is
//     made from inside the socket's raw read callback, which then waits for
//     the response: one write and one read per response, where Write then
//     Read costs a read that finds nothing first.
//   - On a reused connection, bytes that arrive before the request is
//     written are an unsolicited response (a protocol error): those read
//     with the previous response are seen for free, and the socket is
//     peeked (one system call) when the connection sat idle 5 ms or more.
//   - The response is parsed straight out of a bufio.Reader: the status
//     line, then only the headers that frame the body (Content-Length,
//     Transfer-Encoding: chunked, Connection). The body is discarded, or
//     appended to the caller's slice by DoAppend.
//   - The connection is closed and redialled after any error, after
//     Connection: close, and after a body delimited by the end of the
//     connection.
//   - The per-request deadline (Options.Timeout, or the context's, whichever
//     comes first) is set with conn.SetDeadline. Cancelling the context
//     interrupts a request in flight.
//
// In the steady state (connections open, one context reused across
// requests) Do allocates nothing.
//
// Errors are typed so that the caller can classify a failed request:
//
//   - timeout: the error satisfies net.Error with Timeout() true
//     (IsTimeout reports it); this includes context.DeadlineExceeded;
//   - canceled: errors.Is(err, context.Canceled);
//   - protocol: errors.Is(err, ErrProtocol) (a malformed status line,
//     header or chunked encoding);
//   - connection: errors.Is(err, ErrConnection) (dial failure, reset, the
//     connection closed before or during the response).
//
// A status code is never an error: Do returns 404 or 503 as a status with a
// nil error, and redirects are not followed (the 3xx status is returned).
//
// When the server closes a reused keep-alive connection before sending any
// byte of the response (an idle timeout racing the request), the request is
// retried once on a fresh connection, as net/http does. A fresh connection
// is never retried.
package http1
