module github.com/alternayte/queuebox/clients/go

go 1.24
