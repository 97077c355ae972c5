package webhook

import (
	"net/http"
	"strconv"

	"github.com/labstack/echo/v4"

	"github.com/alternayte/queuebox/pkg/httpbody"
)

// reply is the answer of one request.
type reply struct {
	status int
	// body is rendered as JSON; nil sends no body.
	body any
	// retryAfter, when above 0, is sent as Retry-After in seconds.
	retryAfter int
	// closeConn ends the connection after the answer without reading
	// what is left of the request body.
	closeConn bool
}

func (r reply) write(c echo.Context) error {
	if r.retryAfter > 0 {
		c.Response().Header().Set("Retry-After", strconv.Itoa(r.retryAfter))
	}
	if r.closeConn {
		defer httpbody.CloseUnread(c.Response())()
	}
	if r.body == nil {
		return c.NoContent(r.status)
	}
	return c.JSON(r.status, r.body)
}

func errorReply(status int, msg string) reply {
	return reply{status: status, body: map[string]string{"error": msg}}
}

func statusReply(status int, value string) reply {
	return reply{status: status, body: map[string]string{"status": value}}
}

// The fixed answers of the documented table.
var (
	replyFiltered      = statusReply(http.StatusAccepted, "filtered")
	replyDuplicate     = statusReply(http.StatusOK, "duplicate")
	replyStorageFailed = errorReply(http.StatusInternalServerError, "Storage failed")
	replyUnreadable    = errorReply(http.StatusBadRequest, "Request body could not be read")
)

func replyNew(id string) reply {
	return reply{status: http.StatusAccepted, body: map[string]string{"messageId": id}}
}

func replyTooMany(retryAfter int) reply {
	return reply{status: http.StatusTooManyRequests, retryAfter: retryAfter}
}
