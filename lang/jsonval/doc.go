// Package jsonval converts between cty values and JSON text, in one pass
// each way. It is the one converter of the project: the state stores
// values with it, the sandboxes pass inputs and outputs through it, and
// JSON from users, servers and models is read with it.
//
// Writing: lists, sets and tuples become arrays, maps and objects become
// objects, numbers are written exactly (whole numbers and exact doubles in
// their short forms, others in full), strings are escaped as encoding/json
// escapes them (HTML characters and U+2028/U+2029 included, invalid UTF-8
// as U+FFFD), so that the same value always gives the same bytes (cache
// keys depend on it).
//
// Reading: the cty type a JSON text implies — an object for an object, a
// tuple for an array, a number, string, bool, or a null of unknown type —
// what ctyjson.ImpliedType and ctyjson.Unmarshal give together, in one
// pass rather than two through encoding/json's token API.
//
// The files: jsonval.go writes (Append, Marshal, AppendString, SizeHint),
// decode.go reads (Decode, FromGo; a large array on several goroutines).
package jsonval
