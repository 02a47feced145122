//go:build tools

// Package tools pins modules that code generation and later packages need,
// so `go mod tidy` keeps them in go.mod.
package tools

import (
	_ "github.com/blevesearch/bleve/v2"
	_ "github.com/dgraph-io/badger/v4"
	_ "github.com/ethereum/go-ethereum/cmd/abigen"
	_ "github.com/ethereum/go-ethereum/ethclient/simulated"
	_ "github.com/gorilla/websocket"
	_ "github.com/mattn/go-isatty"
	_ "github.com/mr-tron/base58"
	_ "github.com/openai/openai-go/v3"
	_ "github.com/prometheus/client_golang/prometheus"
	_ "github.com/rs/zerolog"
	_ "github.com/urfave/cli/v3"
	_ "go.yaml.in/yaml/v3"
	_ "golang.org/x/crypto/blake2b"
	_ "golang.org/x/sync/errgroup"
	_ "golang.org/x/term"
)
