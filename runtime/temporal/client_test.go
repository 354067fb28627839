package temporal

import (
	"strings"
	"testing"
)

func TestClientOptions(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	o, err := clientOptions("", "", env(nil))
	if err != nil || o.HostPort != DefaultAddress || o.Namespace != "" || o.Credentials != nil {
		t.Errorf("defaults: %+v, %v", o, err)
	}
	o, err = clientOptions("", "", env(map[string]string{"TEMPORAL_ADDRESS": "ns.tmprl.cloud:7233", "TEMPORAL_NAMESPACE": "ns", "TEMPORAL_API_KEY": "k"}))
	if err != nil || o.HostPort != "ns.tmprl.cloud:7233" || o.Namespace != "ns" || o.Credentials == nil {
		t.Errorf("from the environment: %+v, %v", o, err)
	}
	if o, _ := clientOptions("h:1", "other", env(map[string]string{"TEMPORAL_ADDRESS": "x:2", "TEMPORAL_NAMESPACE": "ns"})); o.HostPort != "h:1" || o.Namespace != "other" {
		t.Errorf("flags win: %+v", o)
	}
	_, err = clientOptions("", "", env(map[string]string{"TEMPORAL_TLS_CERT": "/nonexistent/cert.pem", "TEMPORAL_TLS_KEY": "/nonexistent/key.pem"}))
	if err == nil || !strings.Contains(err.Error(), "TEMPORAL_TLS_CERT") {
		t.Errorf("a missing certificate: %v", err)
	}
}
