module github.com/alternayte/queuebox/compose/receiver

go 1.26
