package server

import (
	"bytes"
	"encoding/json"
	"io"
	"regexp"
	"strconv"
	"strings"
	"unicode"
)

// decodePlace finds "(line L:C)" in a protojson error message.
var decodePlace = regexp.MustCompile(`\(line (\d+):(\d+)\)`)

// jsonFieldAt returns the snake_case field path (e.g.
// `position.pieces[1].square`) of the JSON value or object key at the
// place a protojson decode error names in its message, or "" if the
// message names no place or the place is not inside a field (a syntax
// error before any key, say). Keys are turned into proto names
// (lowerCamelCase JSON names are accepted on input).
func jsonFieldAt(body []byte, msg string) string {
	m := decodePlace.FindStringSubmatch(msg)
	if m == nil {
		return ""
	}
	line, _ := strconv.Atoi(m[1])
	col, _ := strconv.Atoi(m[2])
	offset := 0
	for l := 1; l < line; l++ {
		i := bytes.IndexByte(body[offset:], '\n')
		if i < 0 {
			return ""
		}
		offset += i + 1
	}
	offset += col - 1 // the column counts bytes from 1

	type frame struct {
		object    bool
		key       string
		index     int
		expectKey bool
	}
	var stack []frame
	path := func() string {
		var b strings.Builder
		for i, f := range stack {
			if f.object {
				if f.key == "" {
					break
				}
				if i > 0 {
					b.WriteByte('.')
				}
				b.WriteString(snakeCase(f.key))
			} else if f.index >= 0 {
				b.WriteString("[" + strconv.Itoa(f.index) + "]")
			}
		}
		return b.String()
	}
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	for {
		tok, err := dec.Token()
		if err == io.EOF || err != nil {
			// Decoding stops at the first syntax error: the place is the
			// value being read there.
			return path()
		}
		end := int(dec.InputOffset())
		top := len(stack) - 1
		isKey := top >= 0 && stack[top].object && stack[top].expectKey && tok != json.Delim('}')
		if isKey {
			stack[top].key, stack[top].expectKey = tok.(string), false
		} else if top >= 0 && !stack[top].object && tok != json.Delim(']') {
			stack[top].index++
		}
		if end > offset {
			return path()
		}
		switch tok {
		case json.Delim('{'):
			stack = append(stack, frame{object: true, expectKey: true})
		case json.Delim('['):
			stack = append(stack, frame{index: -1})
		case json.Delim('}'), json.Delim(']'):
			stack = stack[:top]
			if top > 0 && stack[top-1].object {
				stack[top-1].expectKey = true
			}
		default:
			if !isKey && top >= 0 && stack[top].object {
				stack[top].expectKey = true
			}
		}
	}
}

// snakeCase turns a JSON name (side_to_move or sideToMove) into the proto
// field name.
func snakeCase(name string) string {
	// Only a lowerCamelCase name is a JSON name of ours; any other key (an
	// unknown field such as "Moves") is named as it was written.
	if strings.IndexFunc(name, unicode.IsUpper) < 0 || !unicode.IsLower([]rune(name)[0]) {
		return name
	}
	var b strings.Builder
	for _, r := range name {
		if unicode.IsUpper(r) {
			b.WriteByte('_')
			r = unicode.ToLower(r)
		}
		b.WriteRune(r)
	}
	return b.String()
}
