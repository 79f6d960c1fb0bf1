module informer-inspector/oracle

go 1.26.0

require (
	k8s.io/apimachinery v0.36.6 // indirect
	k8s.io/client-go v0.36.6 // indirect
)
