#!/usr/bin/env python3
"""Checks that every dump field list names every data member of its struct.

The pass dumps (analysis/pipeline) and the dataset dump (model/dataset_json) list each struct's
fields by hand: TOPOSCOPE_JSON_FIELDS(Type, a, b, ...). A member added to a struct and not to its
list would be dropped from dumps without a word; this fails instead. A brace scanner, not a parser.
Prints one line per problem and exits 1 when there is any.
"""
import os
import re
import sys

def strip_comments(s):
    s = re.sub(r'//[^\n]*', '', s)
    s = re.sub(r'/\*.*?\*/', '', s, flags=re.S)
    return s

def split_top(s, sep=','):
    out=[]; depth=0; cur=''
    for c in s:
        if c in '<([{': depth+=1
        elif c in '>)]}': depth-=1
        if c==sep and depth==0: out.append(cur); cur=''
        else: cur+=c
    out.append(cur); return out

def parse_body(body):
    """Returns list of (type, name) for data members at depth 0 of a struct body."""
    fields=[]; depth=0; stmt=''
    i=0
    while i < len(body):
        c=body[i]
        if c=='{':
            # initializer braces inside a member decl vs nested blocks
            depth+=1; stmt+=c
        elif c=='}':
            depth-=1; stmt+=c
            if depth==0 and re.search(r'\)\s*(const)?\s*(noexcept)?\s*(override)?\s*\{', stmt, re.S):
                stmt=''  # inline method body
        elif c==';' and depth==0:
            fields.extend(parse_stmt(stmt.strip())); stmt=''
        else:
            stmt+=c
        i+=1
    return fields

def parse_stmt(st):
    if not st: return []
    st=re.sub(r'^(public|private|protected)\s*:\s*','',st)
    if re.match(r'^(static|using|friend|typedef|enum|struct|class|template|virtual|explicit|constexpr|inline|\[\[)', st): return []
    # split default init
    decl=st
    # remove default initializers at top level per declarator later
    parts=split_top(decl)
    first=parts[0]
    # first part: type + name [= init]
    m=re.match(r'^(.*?[\w>\]\*&])\s+(\w+)\s*(\[[^\]]*\])?\s*(=.*|\{.*\})?$', first.strip(), re.S)
    if not m: return []
    typ=m.group(1).strip(); name=m.group(2)
    if '(' in typ or typ.startswith('operator'): return []
    if m.group(3): typ=typ+m.group(3)
    # a method declaration: name(...) - check decl has '(' right after name
    if re.search(r'\b'+re.escape(name)+r'\s*\(', first) and not re.search(r'=', first.split(name,1)[0]+'x'):
        # e.g. "bool Foo(int x) const" -> method
        after=first.split(name,1)[1].strip()
        if after.startswith('('): return []
    out=[(typ,name)]
    for p in parts[1:]:
        p=p.strip()
        mm=re.match(r'^(\w+)\s*(=.*|\{.*\})?$', p, re.S)
        if mm: out.append((typ, mm.group(1)))
        else: return []  # not a multi-declarator (maybe template args) -> give up
    return out

def parse_file(path):
    s=strip_comments(open(path).read())
    s=re.sub(r'(?m)^\s*#.*$','',s)
    structs=[]
    # track namespaces
    ns_stack=[]; i=0; depth=0; ns_depths=[]
    token=re.compile(r'namespace\s+([\w:]+)\s*\{|\bstruct\s+(\w+)\s*(final)?\s*\{|\bclass\s+(\w+)\s*(final)?\s*\{|\{|\}')
    pos=0; stack=[]  # entries: ('ns',name) ('struct',name,start) ('other',)
    while True:
        m=token.search(s,pos)
        if not m: break
        pos=m.end()
        if m.group(1):
            stack.append(('ns',m.group(1)))
        elif (m.group(2) or m.group(4)) and re.search(r'\benum\s+$', s[max(0,m.start()-6):m.start()]):
            stack.append(('other',))
        elif m.group(2) or m.group(4):
            kind='struct' if m.group(2) else 'class'
            stack.append((kind, m.group(2) or m.group(4), m.end()))
        elif m.group(0)=='{':
            stack.append(('other',))
        else:
            if not stack: continue
            top=stack.pop()
            if top[0] in ('struct','class'):
                body=s[top[2]:m.start()]
                ns='::'.join(x[1] for x in stack if x[0]=='ns')
                outer=[x[1] for x in stack if x[0] in ('struct','class')]
                name='::'.join(outer+[top[1]])
                # remove nested struct/class/enum bodies from body
                b=body
                while True:
                    nm=re.search(r'\b(struct|class|enum class|enum)\s+\w+[^;{]*\{', b)
                    if not nm: break
                    d=0; j=nm.end()-1
                    while j < len(b):
                        if b[j]=='{': d+=1
                        elif b[j]=='}':
                            d-=1
                            if d==0: break
                        j+=1
                    k=b.find(';', j)
                    tail=b[j+1:k].strip()  # `enum class Dir {...} dir = Dir::kNone;` declares a member
                    decl=''
                    mm=re.match(r'^(\w+)\s*(=.*)?$', tail, re.S)
                    if mm:
                        decl=re.search(r'(struct|class|enum class|enum)\s+(\w+)', nm.group(0)).group(2)+' '+mm.group(1)+';'
                    b=b[:nm.start()]+decl+b[k+1:]
                has_private = top[0]=='class' or re.search(r'\bprivate\s*:', body) is not None
                structs.append({'ns':ns,'name':name,'fields':parse_body(b),'file':path,'kind':top[0],'private':bool(has_private)})
    return structs


def main():
    root = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "src", "toposcope")
    structs = {}
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if f.endswith(".h"):
                for st in parse_file(os.path.join(d, f)):
                    structs.setdefault(st["name"], []).append(st)
    problems = []
    lists = 0
    for d, _, fs in os.walk(root):
        for f in sorted(fs):
            if not f.endswith(".cc"):
                continue
            path = os.path.join(d, f)
            text = open(path).read()
            for m in re.finditer(r"^TOPOSCOPE_JSON_FIELDS\((\w+),([^)]*)\)", text, re.M):
                lists += 1
                name, listed = m.group(1), [x.strip() for x in m.group(2).split(",")]
                rel = os.path.relpath(path, root)
                opened = re.findall(r"^namespace ([\w:]+) \{", text[: m.start()], re.M)
                ns = opened[-1] if opened else ""
                candidates = [st for st in structs.get(name, []) if st["ns"] == ns]
                if not candidates:
                    problems.append(f"{rel}: {name}: no such struct in namespace {ns}")
                    continue
                have = [n for _, n in candidates[0]["fields"]]
                missing = [n for n in have if n not in listed]
                extra = [n for n in listed if n not in have]
                if missing:
                    problems.append(f"{rel}: {name}: members not dumped: {', '.join(missing)}")
                if extra:
                    problems.append(f"{rel}: {name}: listed but not members: {', '.join(extra)}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_dump_fields: {len(problems)} problem(s)", file=sys.stderr)
        return 1
    print(f"check_dump_fields: ok ({lists} field lists)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
