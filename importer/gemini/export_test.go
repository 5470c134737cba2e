package gemini

import "encoding/json"

// MarshalState is json.Marshal of m's state, what SaveState must write.
func MarshalState(m *Mapper) ([]byte, error) { return json.Marshal(m.st) }
