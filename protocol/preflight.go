package protocol

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"time"

	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/status"

	"github.com/perfgate/perfgate/harness"
	"github.com/perfgate/perfgate/kservepb"
)

// ErrModelNotServed is wrapped by the error of CheckModel when the server
// answers that it does not serve the model.
var ErrModelNotServed = errors.New("model not served")

// PreflightTimeout bounds each request of CheckModel.
const PreflightTimeout = 10 * time.Second

// maxListBody bounds the model list or metadata read by CheckModel.
const maxListBody = 1 << 20

// ModelError is CheckModel's answer for a model the server does not serve:
// the model, where it was asked, what the server answered, and the names
// it offers (nil when it does not list them).
type ModelError struct {
	Model, URL, Answer string
	Offered            []string
	// Listed is true when the server listed its models (Offered may then
	// be empty: it serves none).
	Listed bool
}

func (e *ModelError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "model %q is not served at %s (%s)", e.Model, e.URL, e.Answer)
	switch {
	case len(e.Offered) > 0:
		q := make([]string, len(e.Offered))
		for i, n := range e.Offered {
			q[i] = fmt.Sprintf("%q", n)
		}
		fmt.Fprintf(&b, ": the server offers %s; set --model (or the scenario's model) to one of them", strings.Join(q, ", "))
	case e.Listed:
		b.WriteString(": the server lists no model")
	default:
		b.WriteString(": check --model (or the scenario's model) against the server's model names")
	}
	return b.String()
}

func (e *ModelError) Unwrap() error { return ErrModelNotServed }

// CheckModel asks the server, before any load, whether it serves
// o.Model, by the cheapest request its protocol has:
//
//	openai       GET {URL}/v1/models: the model must be one of data[].id
//	kserve-http  GET {URL}/v2/models/{model}: 404 (or Triton's 400
//	             "unknown model") means not served; the names come from
//	             Triton's POST /v2/repository/index when it answers
//	kserve-grpc  ModelMetadata: NOT_FOUND (or "unknown model") means not
//	             served; KServe v2 over gRPC has no model list
//
// It returns a *ModelError (wrapping ErrModelNotServed) when the server
// says it does not serve the model, and nil otherwise, also when the
// check cannot be made (no model list, an error status, no answer): the
// load then finds out as before, and note says why it was not checked
// ("" when it was). http has no model and is never checked.
func CheckModel(ctx context.Context, o Options) (note string, err error) {
	if o.Model == "" {
		return "", nil
	}
	switch o.Protocol {
	case OpenAI:
		return checkOpenAIModel(ctx, o)
	case KServeHTTP:
		return checkKServeHTTPModel(ctx, o)
	case KServeGRPC:
		return checkKServeGRPCModel(ctx, o)
	}
	return "", nil
}

// preflightClient follows no redirect: an answer from elsewhere says
// nothing about the target.
func preflightClient(o Options) *http.Client {
	return &http.Client{
		Transport:     &http.Transport{Proxy: nil, TLSClientConfig: o.TLS, MaxResponseHeaderBytes: harness.MaxResponseHeaderBytes},
		Timeout:       PreflightTimeout,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
}

// preflightGet sends method u with o's headers and returns the status and
// up to maxListBody bytes of the body.
func preflightGet(ctx context.Context, c *http.Client, o Options, method, u string) (int, []byte, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader("{}")
	}
	req, err := http.NewRequestWithContext(ctx, method, u, body)
	if err != nil {
		return 0, nil, err
	}
	for k, v := range o.Headers {
		req.Header.Set(k, v)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(io.LimitReader(resp.Body, maxListBody))
	return resp.StatusCode, b, err
}

func checkOpenAIModel(ctx context.Context, o Options) (string, error) {
	base, err := baseURL(o.URL)
	if err != nil {
		return "", nil // the client reports a bad URL itself
	}
	c := preflightClient(o)
	defer c.CloseIdleConnections()
	u := base + "/v1/models"
	code, b, err := preflightGet(ctx, c, o, http.MethodGet, u)
	switch {
	case err != nil:
		return fmt.Sprintf("model %q not checked: GET %s: %v", o.Model, u, err), nil
	case code != http.StatusOK:
		return fmt.Sprintf("model %q not checked: GET %s answered %d", o.Model, u, code), nil
	}
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	if err := json.Unmarshal(b, &list); err != nil || list.Data == nil {
		return fmt.Sprintf("model %q not checked: GET %s is not an OpenAI model list", o.Model, u), nil
	}
	ids := make([]string, 0, len(list.Data))
	for _, d := range list.Data {
		ids = append(ids, d.ID)
	}
	if slices.Contains(ids, o.Model) {
		return "", nil
	}
	return "", &ModelError{Model: o.Model, URL: base, Answer: "GET /v1/models does not list it", Offered: ids, Listed: true}
}

// unknownModel reports whether an error text says the model is unknown
// (Triton's "Request for unknown model: 'x' is not found").
func unknownModel(msg string) bool {
	m := strings.ToLower(msg)
	return strings.Contains(m, "unknown model") || strings.Contains(m, "not found")
}

func checkKServeHTTPModel(ctx context.Context, o Options) (string, error) {
	base, err := baseURL(o.URL)
	if err != nil {
		return "", nil
	}
	c := preflightClient(o)
	defer c.CloseIdleConnections()
	path := "/v2/models/" + url.PathEscape(o.Model)
	code, b, err := preflightGet(ctx, c, o, http.MethodGet, base+path)
	switch {
	case err != nil:
		return fmt.Sprintf("model %q not checked: GET %s: %v", o.Model, base+path, err), nil
	case code == http.StatusOK:
		return "", nil
	case code == http.StatusNotFound, code == http.StatusBadRequest && unknownModel(string(b)):
	default:
		return fmt.Sprintf("model %q not checked: GET %s answered %d", o.Model, base+path, code), nil
	}
	me := &ModelError{Model: o.Model, URL: base, Answer: fmt.Sprintf("GET %s answered %d: %s", path, code, errorMessage(b))}
	// Triton lists its repository; other servers may not.
	if code, b, err := preflightGet(ctx, c, o, http.MethodPost, base+"/v2/repository/index"); err == nil && code == http.StatusOK {
		var idx []struct {
			Name string `json:"name"`
		}
		if json.Unmarshal(b, &idx) == nil {
			me.Listed = true
			for _, m := range idx {
				if m.Name != "" && !slices.Contains(me.Offered, m.Name) {
					me.Offered = append(me.Offered, m.Name)
				}
			}
		}
	}
	return "", me
}

func checkKServeGRPCModel(ctx context.Context, o Options) (string, error) {
	if o.URL == "" || strings.Contains(o.URL, "://") {
		return "", nil
	}
	creds := insecure.NewCredentials()
	if o.TLS != nil {
		creds = credentials.NewTLS(o.TLS)
	}
	cc, err := grpc.NewClient(o.URL, grpc.WithTransportCredentials(creds))
	if err != nil {
		return "", nil
	}
	defer cc.Close()
	ctx, cancel := context.WithTimeout(ctx, PreflightTimeout)
	defer cancel()
	if len(o.Headers) > 0 {
		ctx = metadata.NewOutgoingContext(ctx, metadata.New(o.Headers))
	}
	_, err = kservepb.NewGRPCInferenceServiceClient(cc).ModelMetadata(ctx, &kservepb.ModelMetadataRequest{Name: o.Model})
	if err == nil {
		return "", nil
	}
	st, _ := status.FromError(err)
	if st.Code() == codes.NotFound || unknownModel(st.Message()) {
		return "", &ModelError{Model: o.Model, URL: o.URL, Answer: fmt.Sprintf("ModelMetadata answered %s: %s", st.Code(), clip([]byte(st.Message())))}
	}
	return fmt.Sprintf("model %q not checked: ModelMetadata at %s: %v", o.Model, o.URL, err), nil
}
