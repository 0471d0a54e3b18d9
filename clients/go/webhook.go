package svcsandbox

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
)

// VerifyWebhook reports whether signature (the X-Service-Signature header) is the lowercase hex
// HMAC-SHA256 of body under secret (the whole whsec_… value the subscription was created with).
// Verify the exact bytes received, before parsing them; the comparison takes constant time.
//
//	raw, _ := io.ReadAll(r.Body)
//	if !svcsandbox.VerifyWebhook(raw, r.Header.Get("X-Service-Signature"), secret) {
//		w.WriteHeader(http.StatusBadRequest)
//		return
//	}
func VerifyWebhook(body []byte, signature, secret string) bool {
	mac := hmac.New(sha256.New, []byte(secret))
	mac.Write(body)
	expected := hex.EncodeToString(mac.Sum(nil))
	return hmac.Equal([]byte(expected), []byte(signature))
}
