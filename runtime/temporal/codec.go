package temporal

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/base64"
	"errors"
	"fmt"

	"github.com/flowctl/flowctl/runtime/state"
	commonpb "go.temporal.io/api/common/v1"
	"go.temporal.io/sdk/converter"
	"google.golang.org/protobuf/proto"
)

// What goes into a workflow's history goes through the data converter of
// workers and clients (Codecs): a payload over LargePayload is kept in the
// state and replaced by its reference (the claim-check pattern), and, with
// a key (EnvKey), every payload is encrypted (AES-256-GCM), so that
// sensitive values may cross.

// LargePayload is the size over which a payload is kept in the state.
const LargePayload = 1 << 20

// EnvKey names the environment variable of the payload key: 32 bytes,
// base64. Workers and clients need the same.
const EnvKey = "FLOWCTL_TEMPORAL_KEY"

// Metadata encodings of the codecs' payloads.
const (
	encodingRef       = "flowctl/state-ref"
	encodingEncrypted = "binary/encrypted"
)

// Key reads the payload key from the environment value v ("" for none).
func Key(v string) ([]byte, error) {
	if v == "" {
		return nil, nil
	}
	key, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(key) != 32 {
		return nil, fmt.Errorf("%s must be 32 bytes in base64 (openssl rand -base64 32)", EnvKey)
	}
	return key, nil
}

// DataConverter is the data converter of workers and clients: JSON
// payloads; those over LargePayload kept in st (when not nil); all of them
// encrypted with key (when not nil).
func DataConverter(st *state.Store, key []byte) (converter.DataConverter, error) {
	var codecs []converter.PayloadCodec
	// Applied last to first when encoding: encrypted, then kept by
	// reference, so that the state holds what the history would.
	if st != nil {
		codecs = append(codecs, refCodec{st})
	}
	if key != nil {
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, err
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, err
		}
		codecs = append(codecs, encryptCodec{aead})
	}
	return converter.NewCodecDataConverter(converter.GetDefaultDataConverter(), codecs...), nil
}

// refCodec keeps large payloads in the state.
type refCodec struct{ st *state.Store }

func (c refCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		out[i] = p
		if len(p.GetData()) <= LargePayload {
			continue
		}
		b, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		ref, err := c.st.PutPayload(b)
		if err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingRef)}, Data: []byte(ref)}
	}
	return out, nil
}

func (c refCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		out[i] = p
		if string(p.GetMetadata()[converter.MetadataEncoding]) != encodingRef {
			continue
		}
		b, err := c.st.Payload(string(p.GetData()))
		if err != nil {
			if errors.Is(err, state.ErrPayloadNotFound) {
				err = fmt.Errorf("%w: workers and clients must share the state (--state postgres://…)", err)
			}
			return nil, err
		}
		out[i] = &commonpb.Payload{}
		if err := proto.Unmarshal(b, out[i]); err != nil {
			return nil, fmt.Errorf("reading payload %s: %w", p.GetData(), err)
		}
	}
	return out, nil
}

// encryptCodec encrypts every payload: nonce, then the sealed payload.
type encryptCodec struct{ aead cipher.AEAD }

func (c encryptCodec) Encode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		b, err := proto.Marshal(p)
		if err != nil {
			return nil, err
		}
		nonce := make([]byte, c.aead.NonceSize(), c.aead.NonceSize()+len(b)+c.aead.Overhead())
		if _, err := rand.Read(nonce); err != nil {
			return nil, err
		}
		out[i] = &commonpb.Payload{
			Metadata: map[string][]byte{converter.MetadataEncoding: []byte(encodingEncrypted)},
			Data:     c.aead.Seal(nonce, nonce, b, nil),
		}
	}
	return out, nil
}

func (c encryptCodec) Decode(payloads []*commonpb.Payload) ([]*commonpb.Payload, error) {
	out := make([]*commonpb.Payload, len(payloads))
	for i, p := range payloads {
		out[i] = p
		if string(p.GetMetadata()[converter.MetadataEncoding]) != encodingEncrypted {
			continue
		}
		data, n := p.GetData(), c.aead.NonceSize()
		if len(data) < n {
			return nil, errors.New("an encrypted payload is too short")
		}
		b, err := c.aead.Open(nil, data[:n], data[n:], nil)
		if err != nil {
			return nil, fmt.Errorf("decrypting a payload (is %s the key the payload was encrypted with?): %w", EnvKey, err)
		}
		out[i] = &commonpb.Payload{}
		if err := proto.Unmarshal(b, out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}
