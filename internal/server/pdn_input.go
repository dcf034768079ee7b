package server

import (
	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
)

// pdnGame reads a ValidateGame request's PDN game.
func pdnGame(prefix string, v *damonev1.Variant, text string) (engine.Variant, []string, error) {
	return engine.Variant{}, nil, badField(prefix+"pdn", "TODO")
}
