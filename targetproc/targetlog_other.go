//go:build !unix

package targetproc

// oNoFollow is 0 where the system has no O_NOFOLLOW (createLog's O_EXCL
// still refuses a link planted after its removal).
const oNoFollow = 0
