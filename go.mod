module github.com/damone-rules/damone

go 1.26
