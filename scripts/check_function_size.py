#!/usr/bin/env python3
"""Lists the functions in src/ and tools/ whose bodies run longer than a limit (default 150 lines).

A brace scanner, not a parser: comments, strings and preprocessor lines are blanked, namespace and
class bodies are scopes, and a block whose header holds a parameter list is a function (lambdas are
counted with the function around them). Usage: check_function_size.py [LIMIT] [DIR...]; exits 1
when any function is longer than LIMIT lines.
"""
import re, sys, os

def strip(src):
    out=[]; i=0; n=len(src)
    while i<n:
        c=src[i]
        if src.startswith('//',i):
            j=src.find('\n',i); j=n if j<0 else j; out.append(' '*(j-i)); i=j; continue
        if src.startswith('/*',i):
            j=src.find('*/',i+2); j=n if j<0 else j+2
            out.append(re.sub(r'[^\n]',' ',src[i:j])); i=j; continue
        m=re.match(r'R"([^(\s]*)\(',src[i:i+20])
        if m and (i==0 or not (src[i-1].isalnum() or src[i-1]=='_')):
            end=')'+m.group(1)+'"'; j=src.find(end,i+len(m.group(0))); j=n if j<0 else j+len(end)
            out.append(re.sub(r'[^\n]',' ',src[i:j])); i=j; continue
        if c in '"\'':
            if c=="'" and i>0 and src[i-1].isalnum() and i+1<n and src[i+1].isalnum():
                out.append(' '); i+=1; continue  # digit separator
            j=i+1
            while j<n and src[j]!=c:
                if src[j]=='\\': j+=1
                if j<n and src[j]=='\n': break
                j+=1
            out.append(c+' '*(j-i-1)+c if j<n else ' '*(j-i)); i=j+1; continue
        out.append(c); i+=1
    txt=''.join(out)
    return re.sub(r'(?m)^[ \t]*#.*$', lambda m: ' '*len(m.group(0)), txt)

def functions(path):
    src=strip(open(path,encoding='utf-8',errors='replace').read())
    stack=[]  # kinds: 'scope' (namespace/class) or 'func' or 'block'
    header_start=0; res=[]
    i=0; line=1; starts={}
    for i,c in enumerate(src):
        if c=='\n': line+=1
        elif c=='{':
            if stack and stack[-1][0] in ('func','block'):
                stack.append(('block',line)); continue
            hdr=src[header_start:i].strip()
            if re.match(r'^(template\s*<.*>\s*)?(namespace|extern\s*"|struct|class|union)\b',hdr,re.S) or re.search(r'\b(struct|class|union)\s+\w+[^()]*$',hdr,re.S):
                stack.append(('scope',line)); header_start=i+1; continue
            if re.match(r'^(enum)\b',hdr) or '(' not in hdr or re.search(r'=\s*$',hdr) or re.match(r'^[^(]*=',hdr):
                stack.append(('block',line)); continue
            name=re.findall(r'([~\w:<>]+)\s*\(',hdr)
            stack.append(('func',line,name[0] if name else '?'))
        elif c=='}':
            if not stack: continue
            top=stack.pop()
            if top[0]=='func':
                res.append((top[2],top[1],line,line-top[1]+1))
            if not stack or stack[-1][0]=='scope': header_start=i+1
        elif c==';':
            if not stack or stack[-1][0]=='scope': header_start=i+1
    return res

def main():
    args = sys.argv[1:]
    limit = int(args[0]) if args and args[0].isdigit() else 150
    roots = [a for a in args if not a.isdigit()] or ["src", "tools"]
    here = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    rows = []
    for r in roots:
        r = os.path.join(here, r) if not os.path.isabs(r) else r
        for d, _, fs in os.walk(r):
            for f in fs:
                if f.endswith((".cc", ".h")):
                    p = os.path.join(d, f)
                    for name, a, _, n in functions(p):
                        if n > limit:
                            rows.append((n, os.path.relpath(p, here), a, name))
    for n, p, a, name in sorted(rows, reverse=True):
        print(f"{p}:{a}: {name} is {n} lines (limit {limit})")
    print(f"check_function_size: {len(rows)} function(s) over {limit} lines", file=sys.stderr)
    return 1 if rows else 0


if __name__ == "__main__":
    sys.exit(main())
