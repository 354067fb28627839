package cli

import (
	"github.com/flowctl/flowctl/server"
	"github.com/spf13/cobra"
)

// The tokens of serve and mcp --http (server.TokenFiles): the flags that
// name their files, and the refusal to listen beyond the loopback
// interface without one.

// tokenFlags are --token-file and --tokens-file.
type tokenFlags struct {
	tokenFile, tokensFile string
}

func (f *tokenFlags) register(cmd *cobra.Command, prefix string) {
	cmd.Flags().StringVar(&f.tokenFile, "token-file", "", prefix+"a file holding the bearer token, which may do everything (default: "+server.EnvToken+")")
	cmd.Flags().StringVar(&f.tokensFile, "tokens-file", "", prefix+"a file of named tokens with roles, a line each: NAME ROLES TOKEN (see docs/serve.md)")
}

// files are the token files the flags name.
func (f *tokenFlags) files() server.TokenFiles {
	return server.TokenFiles{Single: f.tokenFile, Named: f.tokensFile}
}

// load reads the tokens of a command that listens on addr, and refuses an
// address beyond the loopback interface without one.
func (f *tokenFlags) load(command, addr string) (*server.Tokens, error) {
	if f.tokenFile != "" && f.tokensFile != "" {
		return nil, usagef("give --token-file or --tokens-file, not both")
	}
	list, err := f.files().Read()
	if err != nil {
		return nil, err
	}
	loopback, err := server.Loopback(addr)
	if err != nil {
		return nil, usagef("%q is not HOST:PORT", addr)
	}
	if len(list) == 0 && !loopback {
		return nil, usagef("%s listens beyond the loopback interface (%s) only with a token: set %s, --token-file or --tokens-file", command, addr, server.EnvToken)
	}
	return server.NewTokens(list, f.tokensFile != ""), nil
}
