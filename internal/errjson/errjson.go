// Package errjson writes a report whose error is a Go error value as the
// JSON the documents promise: the error's message, as a string, under
// "error". floor and bind reports share it, so the rule lives once.
package errjson

import (
	"bytes"
	"encoding/json"
)

// Marshal encodes v, a struct whose error field is tagged json:"-", and
// appends "error": msg as its last field. With omitEmpty an empty msg
// adds nothing. HTML characters are not escaped, as in the rest of
// abifloor's JSON.
func Marshal(v any, msg string, omitEmpty bool) ([]byte, error) {
	obj, err := encode(v)
	if err != nil || (omitEmpty && msg == "") {
		return obj, err
	}
	m, err := encode(msg)
	if err != nil {
		return nil, err
	}
	obj = obj[:len(obj)-1] // the closing brace
	if len(obj) > 1 {
		obj = append(obj, ',')
	}
	obj = append(obj, `"error":`...)
	obj = append(obj, m...)
	return append(obj, '}'), nil
}

func encode(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(b.Bytes(), []byte("\n")), nil
}
