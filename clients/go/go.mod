module github.com/svc-sandbox/svc-sandbox/clients/go

go 1.19
