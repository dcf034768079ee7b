package server

import (
	damonev1 "github.com/damone-rules/damone/gen/go/damone/v1"
	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/pdn"
)

// pdnGame reads a ValidateGame request's PDN game (docs/notation.md, PDN):
// its moves and the variant it was played under. Without a request
// variant the PDN's tags give every setting; with one, the request's
// settings hold and a PDN start (SetUp/FEN) replaces the variant's setup,
// which must then be unset or the same position.
func pdnGame(prefix string, v *damonev1.Variant, text string) (engine.Variant, []string, error) {
	g, err := pdn.ParseGame(text)
	if err != nil {
		return engine.Variant{}, nil, badField(prefix+"pdn", "%v", err)
	}
	fromTags, err := g.Variant()
	if err != nil {
		return engine.Variant{}, nil, badField(prefix+"pdn", "%v", err)
	}
	if v == nil {
		return fromTags, g.Moves, nil
	}
	variant, err := variantFromProto(prefix+"variant", v)
	if err != nil {
		return variant, nil, err
	}
	if fromTags.Setup == engine.SetupCustom {
		if _, ok := v.GetStart().(*damonev1.Variant_StartPosition); ok && variant.Start.String() != fromTags.Start.String() {
			return variant, nil, badField(prefix+"pdn", "the FEN start %s is not the variant's start_position %s",
				fromTags.Start.String(), variant.Start.String())
		}
		if _, ok := v.GetStart().(*damonev1.Variant_Setup); ok {
			return variant, nil, badField(prefix+"pdn", "the PDN has a custom start (SetUp \"1\" with FEN) and variant.setup asks for a setup: give one of them")
		}
		if v.GetFirstPlayer() != damonev1.Side_SIDE_UNSPECIFIED && sideToProto[fromTags.Start.SideToMove()] != v.GetFirstPlayer() {
			return variant, nil, badField(prefix+"variant.first_player", "is %v but the PDN's FEN start has %v to move",
				v.GetFirstPlayer(), sideToProto[fromTags.Start.SideToMove()])
		}
		variant.Setup, variant.Start = engine.SetupCustom, fromTags.Start
		if _, err := variant.InitialPosition(); err != nil {
			return variant, nil, badField(prefix+"pdn", "%v", err)
		}
	}
	return variant, g.Moves, nil
}
