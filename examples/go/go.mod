module example.com/svcsandbox

go 1.19
