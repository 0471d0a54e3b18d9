package svcsandbox_test

import (
	"strings"
	"testing"

	svcsandbox "github.com/svc-sandbox/svc-sandbox/clients/go"
)

func TestVerifyWebhookAcceptsOnlyTheLowercaseHexHMACOfTheExactBody(t *testing.T) {
	body := []byte(`{"id":"evt_1"}`)
	// Made apart from this package: node -e "crypto.createHmac('sha256','whsec_test').update('{\"id\":\"evt_1\"}').digest('hex')"
	const signature = "030fa3b2413d1993c551364bd53bb9b3edb5c0c34d55dba6ada6041245632811"
	if !svcsandbox.VerifyWebhook(body, signature, "whsec_test") {
		t.Error("the genuine signature does not verify")
	}
	refused := map[string]struct {
		body      string
		signature string
		secret    string
	}{
		"a tampered body":       {`{"id":"evt_2"}`, signature, "whsec_test"},
		"a body re-encoded":     {`{"id": "evt_1"}`, signature, "whsec_test"},
		"another secret":        {string(body), signature, "whsec_other"},
		"an uppercase encoding": {string(body), strings.ToUpper(signature), "whsec_test"},
		"a truncated signature": {string(body), signature[:63], "whsec_test"},
		"no signature":          {string(body), "", "whsec_test"},
		"a prefixed signature":  {string(body), "sha256=" + signature, "whsec_test"},
	}
	for name, c := range refused {
		if svcsandbox.VerifyWebhook([]byte(c.body), c.signature, c.secret) {
			t.Errorf("%s verifies", name)
		}
	}
}
