package server

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"

	"google.golang.org/genproto/googleapis/rpc/errdetails"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"

	"github.com/damone-rules/damone/internal/engine"
	"github.com/damone-rules/damone/internal/games"
)

// errorDomain is the ErrorInfo domain of every error this API returns.
const errorDomain = "damone.v1"

var gamesCodes = map[games.Code]codes.Code{
	games.CodeInvalidArgument:    codes.InvalidArgument,
	games.CodeNotFound:           codes.NotFound,
	games.CodeUnauthenticated:    codes.Unauthenticated,
	games.CodePermissionDenied:   codes.PermissionDenied,
	games.CodeFailedPrecondition: codes.FailedPrecondition,
	games.CodeAborted:            codes.Aborted,
	games.CodeResourceExhausted:  codes.ResourceExhausted,
	games.CodeOutOfRange:         codes.OutOfRange,
	games.CodeUnavailable:        codes.Unavailable,
}

// moveCauses maps the engine's refusal kinds to the ILLEGAL_MOVE `cause`
// metadata of the contract (error_reason.proto).
var moveCauses = map[engine.MoveErrorCode]string{
	engine.MoveNoPiece:           "NO_PIECE",
	engine.MoveWrongSide:         "OPPONENT_PIECE",
	engine.MoveCaptureCompulsory: "CAPTURE_REQUIRED",
	engine.MoveIncomplete:        "INCOMPLETE_CAPTURE",
	engine.MoveLowerPriority:     "CAPTURE_PRIORITY",
}

// toStatus turns any error of a handler into the status the contract
// documents: the code, an ErrorInfo reason with its metadata, and a
// BadRequest for malformed fields. Unknown errors are INTERNAL, with a
// message that leaks nothing.
func toStatus(err error) error {
	if err == nil {
		return nil
	}
	if _, ok := status.FromError(err); ok {
		return err
	}
	var fe *fieldError
	var ge *games.Error
	var me *engine.MoveError
	switch {
	case errors.As(err, &fe):
		return invalidStatus(fe.field, fe.msg)
	case errors.As(err, &ge):
		if ge.Code == games.CodeInvalidArgument {
			return invalidStatus(ge.Field, ge.Message)
		}
		md := map[string]string{}
		for k, v := range ge.Metadata {
			md[k] = v
		}
		if errors.As(ge.Err, &me) {
			addMoveMetadata(md, me, ge.Legal)
		}
		return withInfo(gamesCodes[ge.Code], ge.Message, ge.Reason, md)
	case errors.As(err, &me):
		return moveStatus(me, nil)
	case errors.Is(err, context.Canceled):
		return status.Error(codes.Canceled, "the call was cancelled")
	case errors.Is(err, context.DeadlineExceeded):
		return status.Error(codes.DeadlineExceeded, "the call ran past its deadline")
	}
	return status.Error(codes.Internal, "internal error")
}

// moveStatus is the status of a refused move in a stateless position.
func moveStatus(me *engine.MoveError, legal []engine.Move) error {
	if me.Code == engine.MoveMalformed {
		return invalidStatus("move", me.Error())
	}
	md := map[string]string{}
	names := make([]string, len(legal))
	for i := range legal {
		names[i] = legal[i].String()
	}
	if me.Code == engine.MoveAmbiguous {
		names = names[:0]
		for i := range me.Candidates {
			names = append(names, me.Candidates[i].String())
		}
	}
	addMoveMetadata(md, me, names)
	reason := games.ReasonIllegalMove
	if me.Code == engine.MoveAmbiguous {
		reason = games.ReasonAmbiguousMove
	}
	return withInfo(codes.FailedPrecondition, me.Error(), reason, md)
}

func addMoveMetadata(md map[string]string, me *engine.MoveError, moves []string) {
	md["move"] = me.Text
	sorted := append([]string(nil), moves...)
	sort.Strings(sorted)
	if me.Code == engine.MoveAmbiguous {
		md["matching_moves"] = strings.Join(sorted, ",")
		return
	}
	md["legal_moves"] = strings.Join(sorted, ",")
	if c, ok := moveCauses[me.Code]; ok {
		md["cause"] = c
	} else {
		md["cause"] = "NOT_A_MOVE"
	}
}

// invalidStatus is INVALID_ARGUMENT for one malformed field: the message
// names the field, the BadRequest violation carries it on its own.
func invalidStatus(field, msg string) error {
	field, msg = validUTF8(field), validUTF8(msg)
	text := msg
	if field != "" && !strings.HasPrefix(msg, field) {
		text = field + ": " + msg
	}
	st := status.New(codes.InvalidArgument, text)
	st, _ = st.WithDetails(
		&errdetails.ErrorInfo{Reason: games.ReasonInvalidRequest, Domain: errorDomain},
		&errdetails.BadRequest{FieldViolations: []*errdetails.BadRequest_FieldViolation{{Field: field, Description: msg}}},
	)
	return st.Err()
}

// limitExceeded is RESOURCE_EXHAUSTED (LIMIT_EXCEEDED) for the server
// limit named limit, whose value is maximum (error_reason.proto).
func limitExceeded(limit string, maximum any, format string, args ...any) error {
	return withInfo(codes.ResourceExhausted, fmt.Sprintf(format, args...), games.ReasonLimitExceeded,
		map[string]string{"limit": limit, "maximum": fmt.Sprint(maximum)})
}

func withInfo(code codes.Code, msg, reason string, md map[string]string) error {
	st := status.New(code, validUTF8(msg))
	for k, v := range md {
		md[k] = validUTF8(v)
	}
	if reason != "" {
		if len(md) == 0 {
			md = nil
		}
		st, _ = st.WithDetails(&errdetails.ErrorInfo{Reason: reason, Domain: errorDomain, Metadata: md})
	}
	return st.Err()
}

// validUTF8 replaces what is not UTF-8 in text quoted from a request: a
// status, its details and every string of a response must be valid UTF-8,
// or they cannot be marshalled (and the error would be lost) or decoded.
func validUTF8(text string) string {
	if utf8.ValidString(text) {
		return text
	}
	return strings.ToValidUTF8(text, "\uFFFD")
}
