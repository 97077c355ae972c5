package source

// Gather returns first and the items that ch holds now, up to limit in
// all, in the order of ch: the group of a consumer whose broker pushes its
// messages ahead (a RabbitMQ prefetch window, a JetStream fetch). It
// never waits for an item that is not there yet, so a lone message is
// not delayed, and the next group forms while this one is stored. open is
// false when ch was found closed; the items before the close are in the
// group. A limit below 1 counts as 1.
func Gather[T any](first T, ch <-chan T, limit int) (group []T, open bool) {
	group = append(make([]T, 0, min(max(limit, 1), 64)), first)
	for len(group) < limit {
		select {
		case item, ok := <-ch:
			if !ok {
				return group, false
			}
			group = append(group, item)
		default:
			return group, true
		}
	}
	return group, true
}
