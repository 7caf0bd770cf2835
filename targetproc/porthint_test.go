package targetproc

import (
	"strings"
	"testing"
)

func TestPortHint(t *testing.T) {
	const port = 34539
	tests := []struct {
		name    string
		log     string
		command []string
		want    []string // each in the hint; none: no hint
	}{
		{"fixed port in the command", "svc listening on 127.0.0.1:8080\n", []string{"./svc", "--addr", "127.0.0.1:8080"},
			[]string{"seems to listen on port 8080", "not on port 34539", `command: ["./svc", "--addr", "127.0.0.1:{port}"]`}},
		{"default port, no flag given", "2026/12/06 02:14:15 svc listening on :8080\n", []string{"./svc"},
			[]string{"seems to listen on port 8080", `command: ["./svc", "--port", "{port}"]`, `env: {PORT: "{port}"}`}},
		{"a URL in the log", "INFO: Uvicorn running on http://0.0.0.0:8000 (Press CTRL+C to quit)\n", []string{"uvicorn", "app:app"},
			[]string{"port 8000"}},
		{"port N", "Server started on port 5000\n", []string{"java", "-jar", "svc.jar"}, []string{"port 5000"}},
		{"IPv6 wildcard", "listening on [::]:9090\n", []string{"./svc"}, []string{"port 9090"}},
		{"passes {port} but the service ignored it", "listening on :8080\n", []string{"./svc", "--prot", "{port}"},
			[]string{"its command passes {port}", "check the flag"}},
		// The service did listen where it was told: its readiness failed
		// for another reason, and a port hint would mislead.
		{"listens on the port given", "listening on 127.0.0.1:34539\nconnected to db at 127.0.0.1:5432\n", []string{"./svc"}, nil},
		// Times of day and addresses it connects to are not where it listens.
		{"a time of day", "12:34:56 loading model\n", []string{"./svc"}, nil},
		{"an address it connects to", "connecting to postgres at 127.0.0.1:5432\n", []string{"./svc"}, nil},
		{"empty log", "", []string{"./svc"}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := portHint("svc", tt.log, port, 0, tt.command)
			if len(tt.want) == 0 && got != "" {
				t.Errorf("portHint = %q, want none", got)
			}
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("portHint = %q, want it to contain %q", got, w)
				}
			}
		})
	}
}
