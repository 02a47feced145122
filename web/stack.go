package web

import (
	"github.com/prometheus/client_golang/prometheus"
	"github.com/rs/zerolog"

	"arena/config"
	"arena/validator"
)

// ForStack builds the console over a stack's validator, for
// validator.StackOptions.Console.
func ForStack(cfg config.WebConfig, reg prometheus.Registerer, log zerolog.Logger) func(*validator.Validator) (validator.Console, error) {
	return func(v *validator.Validator) (validator.Console, error) {
		return New(Options{Validator: v, PublicRate: cfg.PublicRate, PublicBurst: cfg.PublicBurst, Registerer: reg}, log)
	}
}
