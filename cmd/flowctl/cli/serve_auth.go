package cli

import (
	"github.com/flowctl/flowctl/server"
)

// The tokens of serve and mcp --http (server.TokenFiles): the flags that
// name their files, and the refusal to listen beyond the loopback
// interface without one.

// tokenFlags are --token-file and --tokens-file.
type tokenFlags struct {
	tokenFile, tokensFile string
}

// files are the token files the flags name.
func (f *tokenFlags) files() server.TokenFiles {
	return server.TokenFiles{Single: f.tokenFile, Named: f.tokensFile}
}

// load reads the tokens of a command that listens on addr, and refuses an
// address beyond the loopback interface without one.
func (f *tokenFlags) load(command, addr string) (*server.Tokens, error) {
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
