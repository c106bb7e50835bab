// Package prompt asks for passwords on the terminal without echo, as
// 7-Zip and unrar do: an empty password is refused and asked for again,
// a new archive's password is typed twice, end of input (Ctrl-D) gives up
// at once with archive.ErrPasswordRequired, and Ctrl-C or SIGTERM ends
// the prompt with the context's error. It never prompts when stdin is not
// a terminal.
//
// Source decides where a run's password comes from: --password (7-Zip's
// -pSECRET), the first line of --password-file or of standard input
// (--password-stdin; an empty line is refused as a wrong password would
// be), or the terminal, asked only when an archive turns out to need one.
// A wrong password typed at the terminal may be asked for again, as unrar
// does, up to Tries times.
package prompt
