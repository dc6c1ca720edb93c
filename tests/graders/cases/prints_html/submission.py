def double(x):
    print("<script>alert('x')</script>")
    return x * 2
