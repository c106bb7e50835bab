// Package prompt asks for passwords on the terminal without echo, as
// 7-Zip and unrar do: an empty password is refused and asked for again,
// a new archive's password is typed twice, end of input (Ctrl-D) gives up
// at once with archive.ErrPasswordRequired, and Ctrl-C or SIGTERM ends
// the prompt with the context's error. It never prompts when stdin is not
// a terminal.
package prompt
