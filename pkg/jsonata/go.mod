module github.com/alternayte/queuebox/pkg/jsonata

go 1.26

require (
	github.com/blues/jsonata-go v1.5.4 // indirect
	github.com/stretchr/testify v1.12.1 // indirect
)
