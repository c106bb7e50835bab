package cli

import (
	"os/user"
	"strconv"
)

// ownerNames looks up and remembers user and group names for tar
// headers ("" when there is none).
type ownerNames struct {
	users, groups map[int]string
}

func (o *ownerNames) user(uid int) string {
	if o.users == nil {
		o.users = map[int]string{}
	}
	if n, ok := o.users[uid]; ok {
		return n
	}
	n := ""
	if u, err := user.LookupId(strconv.Itoa(uid)); err == nil {
		n = u.Username
	}
	o.users[uid] = n
	return n
}

func (o *ownerNames) group(gid int) string {
	if o.groups == nil {
		o.groups = map[int]string{}
	}
	if n, ok := o.groups[gid]; ok {
		return n
	}
	n := ""
	if g, err := user.LookupGroupId(strconv.Itoa(gid)); err == nil {
		n = g.Name
	}
	o.groups[gid] = n
	return n
}
