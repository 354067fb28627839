package llm

import (
	"reflect"
	"strings"
	"testing"
)

func TestConfigFromEnv(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Config
		err  string
	}{
		{"defaults", nil, Config{Model: DefaultModel, Concurrency: DefaultConcurrency, MaxRetries: DefaultMaxRetries}, ""},
		{"all set", map[string]string{
			"OPENAI_API_KEY": "sk-1", "OPENAI_BASE_URL": "http://localhost:11434/v1", "FLOWCTL_MODEL": "llama3.2",
			"FLOWCTL_LLM_CONCURRENCY": "8", "FLOWCTL_LLM_RPM": " 600 ",
		}, Config{APIKey: "sk-1", BaseURL: "http://localhost:11434/v1", Model: "llama3.2", Concurrency: 8, RPM: 600, MaxRetries: DefaultMaxRetries}, ""},
		{"empty means unset", map[string]string{"FLOWCTL_MODEL": "", "FLOWCTL_LLM_CONCURRENCY": ""},
			Config{Model: DefaultModel, Concurrency: DefaultConcurrency, MaxRetries: DefaultMaxRetries}, ""},
		{"bad concurrency", map[string]string{"FLOWCTL_LLM_CONCURRENCY": "many"}, Config{}, `FLOWCTL_LLM_CONCURRENCY must be a whole number, at least 1; got "many"`},
		{"zero concurrency", map[string]string{"FLOWCTL_LLM_CONCURRENCY": "0"}, Config{}, "FLOWCTL_LLM_CONCURRENCY must be"},
		{"bad rpm", map[string]string{"FLOWCTL_LLM_RPM": "-5"}, Config{}, `FLOWCTL_LLM_RPM must be a whole number, 0 (no limit) or more; got "-5"`},
		{"bad base URL", map[string]string{"OPENAI_BASE_URL": "localhost:11434"}, Config{}, "OPENAI_BASE_URL must be an http or https URL"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ConfigFromEnv(func(k string) (string, bool) { v, ok := tt.env[k]; return v, ok })
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Errorf("error = %v, want %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got, tt.want) {
				t.Errorf("config = %+v\nwant     %+v", got, tt.want)
			}
		})
	}
}
