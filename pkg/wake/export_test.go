package wake

// NotifierChannel is the channel n sends on.
func NotifierChannel(n *Notifier) string { return n.channel }
