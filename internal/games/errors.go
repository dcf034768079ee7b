package games

import (
	"context"
	"errors"
	"fmt"
)

// Code classifies an error the way callers must react to it; the transport
// maps each to its status code.
type Code uint8

const (
	CodeInvalidArgument    Code = iota + 1 // malformed input; Field names it
	CodeNotFound                           // no such game
	CodeUnauthenticated                    // no side token
	CodePermissionDenied                   // the token is not the side's
	CodeFailedPrecondition                 // illegal move, not your turn, game over...
	CodeAborted                            // stale etag or ply, or a concurrent change
	CodeResourceExhausted                  // a limit; Limit names it
	CodeOutOfRange                         // a sequence number past the end
	CodeUnavailable                        // the store cannot be reached, or the server is stopping
)

// Machine-readable reasons (the API's ErrorInfo reasons).
const (
	ReasonInvalidRequest     = "INVALID_REQUEST"
	ReasonIllegalMove        = "ILLEGAL_MOVE"
	ReasonAmbiguousMove      = "AMBIGUOUS_MOVE"
	ReasonNotYourTurn        = "NOT_YOUR_TURN"
	ReasonGameOver           = "GAME_OVER"
	ReasonNoDrawOffer        = "NO_DRAW_OFFER"
	ReasonDrawAlreadyOffered = "DRAW_ALREADY_OFFERED"
	ReasonEtagMismatch       = "ETAG_MISMATCH"
	ReasonPlyMismatch        = "PLY_MISMATCH"
	ReasonGameNotFound       = "GAME_NOT_FOUND"
	ReasonMissingToken       = "MISSING_TOKEN"
	ReasonWrongToken         = "WRONG_TOKEN"
	ReasonLimitExceeded      = "LIMIT_EXCEEDED"
	ReasonSequenceOutOfRange = "SEQUENCE_OUT_OF_RANGE"
)

// Error is the error of every Service method that fails for a reason the
// caller can act on.
type Error struct {
	Code    Code
	Reason  string   // one of the Reason constants
	Field   string   // for CodeInvalidArgument: the request field at fault
	Limit   string   // for CodeResourceExhausted: the limit's setting name
	Message string   // a sentence for people
	Legal   []string // for illegal and ambiguous moves: the legal (or matching) moves
	// Metadata holds the reason's machine-readable details (the API's
	// ErrorInfo metadata keys, e.g. "side_to_move").
	Metadata map[string]string
	Err      error // an underlying error, if any (*engine.MoveError for moves)
}

func (e *Error) Error() string { return e.Message }
func (e *Error) Unwrap() error { return e.Err }

func invalid(field, format string, args ...any) *Error {
	return &Error{Code: CodeInvalidArgument, Reason: ReasonInvalidRequest, Field: field, Message: fmt.Sprintf(format, args...)}
}

func precondition(reason, format string, args ...any) *Error {
	return &Error{Code: CodeFailedPrecondition, Reason: reason, Message: fmt.Sprintf(format, args...)}
}

// storeError turns a store error into the service's error.
func storeError(err error) error {
	switch {
	case errors.Is(err, ErrNotFound):
		return &Error{Code: CodeNotFound, Reason: ReasonGameNotFound, Message: "no such game", Err: err}
	case errors.Is(err, context.Canceled), errors.Is(err, context.DeadlineExceeded):
		return err
	}
	return &Error{Code: CodeUnavailable, Message: "the game store failed: " + err.Error(), Err: err}
}
