package integration

// destinationEnv routes every topic to the receiver.
func destinationEnv(env map[string]string, baseURL string) map[string]string {
	return with(env,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_TYPE", "http",
		"QUEUEBOX_DESTINATIONS_WEBHOOK_BASEURL", baseURL,
		"QUEUEBOX_DESTINATIONS_WEBHOOK_PATH", "/webhook",
		"QUEUEBOX_ROUTES_0_TOPICPATTERN", "**",
		"QUEUEBOX_ROUTES_0_DESTINATION", "webhook",
		"QUEUEBOX_OUTBOX_POLLINTERVALMS", "20",
	)
}
