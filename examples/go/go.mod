module example.com/voiceapp

go 1.19

require github.com/svc-sandbox/svc-sandbox/clients/go v0.0.0

// Before svcsandbox is published, point at a copy of the repository's clients/go.
replace github.com/svc-sandbox/svc-sandbox/clients/go => ../../clients/go
