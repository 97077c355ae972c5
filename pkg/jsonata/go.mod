module github.com/alternayte/queuebox/pkg/jsonata

go 1.26

require github.com/blues/jsonata-go v1.5.4

require (
	github.com/stretchr/testify v1.12.1
	go.yaml.in/yaml/v3 v3.0.5 // indirect
)
