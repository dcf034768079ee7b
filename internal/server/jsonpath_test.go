package server

import "testing"

// The paths are worked out by hand from each body and the place given.
func TestJSONFieldAt(t *testing.T) {
	cases := []struct {
		body, msg, want string
	}{
		{`{"position": 5}`, "proto: (line 1:14): invalid value for message field", "position"},
		{`{"positon": {}}`, `proto: (line 1:2): unknown field "positon"`, "positon"},
		{`{"position": {"side_to_move": "X"}}`, "proto: (line 1:31): invalid value for enum field", "position.side_to_move"},
		{"{\n  \"position\": {\n    \"pieces\": [{\"square\": \"a1\"}, {\"square\": 5}]\n  }\n}",
			"proto: (line 3:44): invalid value for string field", "position.pieces[1].square"},
		{`{"position": {"sideToMove": 7.5}}`, "proto: (line 1:29): invalid value", "position.side_to_move"},
		{`{"a": 1, "b": [1, 2, {"c": {"dE": true}}]}`, "proto: (line 1:35): x", "b[2].c.d_e"},
		{`{"a": 1, "b": 2}`, "proto: (line 1:15): x", "b"},
		{`{"Moves": 5}`, "proto: (line 1:2): unknown field", "Moves"},
		{`{bad`, "proto: syntax error (line 1:2): invalid value bad", ""},
		{`{"a": 1}`, "no place in this message", ""},
	}
	for _, c := range cases {
		if got := jsonFieldAt([]byte(c.body), c.msg); got != c.want {
			t.Errorf("jsonFieldAt(%s, %q) = %q, want %q", c.body, c.msg, got, c.want)
		}
	}
}
