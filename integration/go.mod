module github.com/alternayte/queuebox/integration

go 1.26
